import { describe, expect, it } from 'vitest';
import { coreQuickstart } from '../examples/quickstart.js';

describe("the README's example", () => {
  const result = coreQuickstart();

  it('folds the log into three user turns', () => {
    expect(result.userTurns).toBe(3);
  });

  it('keeps the pinned constraint and the newest turn, drops the rest by id', () => {
    expect(result.keptIds).toEqual(['m6']);
    expect(result.archivedIds).toEqual(['m2', 'm3', 'm4', 'm5']);
    expect(result.actionOfFirstMessage).toBe('include');
    expect(result.actionOfToolCall).toBe('drop');
  });

  it('carries the pinned fact through a summary merge verbatim', () => {
    expect(result.mergedSummary).toContain('Never change the public API.');
    expect(result.mergedSummary).toContain('Add tests for the importer');
  });

  it('gives 93,600 tokens for messages under the remainder rule', () => {
    expect(result.availableForMessages).toBe(93_600);
  });

  it('fires the turn trigger above two user turns', () => {
    expect(result.triggerFires).toBe(true);
  });
});
