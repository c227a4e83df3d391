import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderSummary, structuredSummarySchema, trimSummaryToBudget } from '../src/index.js';
import { arbitraryStructuredSummary } from './support/testkit.js';

const countText = (text: string) => Math.ceil(text.length / 4);

describe('trimSummaryToBudget', () => {
  const summary = structuredSummarySchema.parse({
    currentTask: 'Answer questions about the garden',
    facts: [
      { text: 'Never water after 6pm', pinned: true },
      ...Array.from({ length: 40 }, (_, index) => ({
        text: `turn ${index + 1}: planted row ${index + 1} with beans`,
      })),
    ],
    toolOutcomes: [
      { toolName: 'order', outcome: 'success', keyFields: { order_id: 'ORD-1' } },
      ...Array.from({ length: 10 }, (_, index) => ({
        toolName: 'ls',
        outcome: 'success' as const,
        keyFields: {},
      })).map((outcome, index) => ({ ...outcome, toolCallId: `c${index}` })),
    ],
    filesModified: ['garden.md'],
  });

  it('returns a summary that already fits unchanged', () => {
    expect(trimSummaryToBudget(summary, 10_000, countText)).toBe(summary);
  });

  it('fits the budget, keeps every guarantee, and thins evenly instead of forgetting the oldest', () => {
    const trimmed = trimSummaryToBudget(summary, 150, countText);
    expect(countText(renderSummary(trimmed))).toBeLessThanOrEqual(150);
    expect(trimmed.facts).toContainEqual({ text: 'Never water after 6pm', pinned: true });
    expect(trimmed.toolOutcomes).toContainEqual(
      expect.objectContaining({ keyFields: { order_id: 'ORD-1' } }),
    );
    expect(trimmed.filesModified).toEqual(['garden.md']);
    expect(trimmed.currentTask).toBe('Answer questions about the garden');
    const loose = trimmed.facts.filter((fact) => !fact.pinned).map((fact) => fact.text);
    expect(loose.length).toBeGreaterThan(1);
    expect(loose[0]).toBe('turn 1: planted row 1 with beans');
    expect(loose.at(-1)).toBe('turn 40: planted row 40 with beans');
  });

  it('never drops a pinned fact or a key field, whatever the budget', () => {
    fc.assert(
      fc.property(arbitraryStructuredSummary(), fc.integer({ min: 1, max: 400 }), (random, budget) => {
        const trimmed = trimSummaryToBudget(random, budget, countText);
        for (const fact of random.facts.filter((candidate) => candidate.pinned))
          expect(trimmed.facts).toContainEqual(fact);
        for (const outcome of random.toolOutcomes.filter(
          (candidate) => Object.keys(candidate.keyFields).length > 0,
        )) {
          expect(trimmed.toolOutcomes).toContainEqual(outcome);
        }
      }),
      { numRuns: 100 },
    );
  });
});
