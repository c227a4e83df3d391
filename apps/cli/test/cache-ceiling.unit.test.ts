import type { Thread } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it } from 'vitest';
import { langchainTrimBaseline, slidingWindowBaseline } from '../src/eval/baselines/index.js';
import {
  baselineCacheFigures,
  cacheBaseline,
  cacheCeiling,
  callPoints,
  equalTokenCacheFigures,
} from '../src/eval/cache-replay.js';
import { CACHE_PRICES } from '../src/eval/prompt-cache.js';

const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });

function dialogue(turns: number): Thread {
  let builder = threadBuilder('ceiling', { contextWindow: 8_000 });
  for (let turn = 0; turn < turns; turn += 1) {
    const words = Array.from(
      { length: 20 + (turn % 5) * 15 },
      (_, index) => `w${(turn * 17 + index) % 97}`,
    ).join(' ');
    builder = builder.user(`Question ${turn}: ${words}`).assistant(`Answer ${turn}: ${words}.`);
  }
  return builder.build().thread;
}

describe('the cache ceiling (ADR-0315)', () => {
  const thread = dialogue(50);
  const input = { thread, ceiling: 1_500, provider: 'anthropic' as const, tokenizer };

  it('bounds the baselines at their window and at other token use', async () => {
    const ceiling = cacheCeiling(input);
    expect(ceiling.calls).toBe(callPoints(thread).length);
    for (const baseline of [slidingWindowBaseline, langchainTrimBaseline]) {
      const figures = await baselineCacheFigures(cacheBaseline(baseline), input);
      expect(figures.cachedShare).toBeLessThanOrEqual(ceiling.threadOnlyShare);
      expect(figures.costUsd).toBeGreaterThanOrEqual(ceiling.costFloorUsd);
    }
    // At a wider ceiling the baseline compacts less often; still under that ceiling's bound.
    const wide = { ...input, ceiling: 3_000 };
    const wider = await equalTokenCacheFigures(cacheBaseline(slidingWindowBaseline), wide, 2_500);
    expect(wider.figures.cachedShare).toBeLessThanOrEqual(
      cacheCeiling({ ...wide, ceiling: wider.ceiling }).cachedShare,
    );
  }, 60_000);

  it('is tighter for a system that adds nothing, and lower at a tighter ceiling', () => {
    const ceiling = cacheCeiling(input);
    expect(ceiling.threadOnlyShare).toBeLessThanOrEqual(ceiling.cachedShare);
    expect(ceiling.cachedShare).toBeGreaterThan(0);
    expect(cacheCeiling({ ...input, ceiling: 600 }).cachedShare).toBeLessThan(ceiling.cachedShare);
  });

  it('prices every new token at the cache-write price', () => {
    const ceiling = cacheCeiling(input);
    expect(ceiling.costFloorUsd).toBeCloseTo(
      (ceiling.newTokens * CACHE_PRICES.anthropic.cacheWritePerMTok) / 1e6,
      9,
    );
    // The whole thread is new once: the new tokens are at least the thread's own.
    expect(ceiling.newTokens).toBeGreaterThan(0);
  });
});
