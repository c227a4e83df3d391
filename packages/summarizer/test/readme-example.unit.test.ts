import { renderSummary } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { summarizeDuringAnOutage } from '../examples/fallback-chain.js';

describe("the README's example", () => {
  it('falls back to the extractive summarizer, keeping the constraint verbatim, then serves the cache', async () => {
    const { first, second } = await summarizeDuringAnOutage();
    expect(first.via).toBe('extractive');
    expect(renderSummary(first.summary)).toContain('Never change the public API.');
    expect(second.via).toBe('cache');
    expect(second.summary).toEqual(first.summary);
  });
});
