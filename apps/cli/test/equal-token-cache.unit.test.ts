import type { Thread } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it } from 'vitest';
import { slidingWindowBaseline } from '../src/eval/baselines/index.js';
import {
  baselineCacheFigures,
  cacheBaseline,
  compactionTarget,
  equalTokenCacheFigures,
} from '../src/eval/cache-replay.js';
import type { EvaluationResult, RunMetrics } from '../src/eval/eval-types.js';
import { cacheTable, ceilingTable, equalTokenTable } from '../src/eval/format-eval-report.js';
import { meanRequestTokens } from '../src/eval/prompt-cache.js';

const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });

/** A dialogue long enough to overflow a few thousand tokens many times. */
function longDialogue(turns: number): Thread {
  let builder = threadBuilder('equal-tokens', { contextWindow: 8_000 });
  for (let turn = 0; turn < turns; turn += 1) {
    const words = Array.from({ length: 40 }, (_, index) => `word${(turn * 31 + index * 7) % 211}`).join(' ');
    builder = builder.user(`Question ${turn}: ${words}`).assistant(`Answer ${turn}: ${words} done.`);
  }
  return builder.build().thread;
}

describe('the sliding window at our tokens (ADR-0275)', () => {
  const thread = longDialogue(60);
  const input = { thread, ceiling: 2_000, provider: 'anthropic' as const, tokenizer };
  const system = cacheBaseline(slidingWindowBaseline);

  it('finds a ceiling whose mean request is near the asked mean, above and below the real one', async () => {
    const real = await baselineCacheFigures(system, input);
    const realMean = meanRequestTokens(real);
    for (const asked of [realMean * 1.4, realMean * 0.7]) {
      const equal = await equalTokenCacheFigures(system, input, asked);
      const mean = meanRequestTokens(equal.figures);
      expect(equal.matchedTokens).toBe(asked);
      // Closer to the asked mean than the real run is, and within 10% of it.
      expect(Math.abs(mean - asked)).toBeLessThan(Math.abs(realMean - asked));
      expect(Math.abs(mean - asked) / asked).toBeLessThan(0.1);
      expect(equal.figures.calls).toBe(real.calls);
    }
  }, 60_000);

  it('keeps the compaction target at the real ratio to the ceiling (the same hysteresis)', async () => {
    const ratio = Math.min(input.ceiling, compactionTarget(thread)) / input.ceiling;
    const equal = await equalTokenCacheFigures(system, input, 1_500);
    const direct = await baselineCacheFigures(system, {
      ...input,
      ceiling: equal.ceiling,
      target: Math.floor(equal.ceiling * ratio),
    });
    expect(equal.figures).toEqual(direct);
  }, 60_000);
});

describe('the cache report at equal tokens', () => {
  const figures = (calls: number, inputTokens: number, share: number) => ({
    calls,
    cachedShare: share,
    inputTokens,
    uncachedTokens: Math.round(inputTokens * (1 - share)),
    commits: 2,
    emergencyFits: 0,
    emergencyDropped: { messages: 0, summaries: 0, trimmedSummaries: 0, summaryItems: 0, clearedResults: 0 },
    breaks: 1,
    uncachedBy: { commit: 0, emergencyFit: 0, other: 0, recall: 0 },
    costUsd: 1.5,
    openAiCostUsd: 1,
    uncachedCostUsd: 2,
  });
  const run = (system: string, extra: Partial<RunMetrics>): RunMetrics => ({
    system,
    transcript: 'cc/one',
    kind: 'claude-code',
    window: 24_000,
    ceiling: 20_000,
    transcriptTokens: 90_000,
    requestTokens: 19_000,
    withinBudget: true,
    valid: true,
    validationErrors: [],
    compressionRatio: 4,
    retention: { overall: { retained: 1, total: 1 }, byKind: {} },
    elapsedMs: 1,
    ...extra,
  });
  const result = {
    systems: [
      { name: 'compactor', source: '' },
      { name: 'sliding-window', source: '' },
    ],
    runs: [
      run('compactor', {
        cache: figures(10, 200_000, 0.6),
        cacheAtOurTokens: {
          system: 'sliding-window at our tokens',
          ceiling: 27_000,
          matchedTokens: 20_000,
          figures: figures(10, 198_000, 0.81),
        },
      }),
      run('sliding-window', { cache: figures(10, 120_000, 0.79) }),
    ],
  } as unknown as EvaluationResult;

  it('puts each system’s mean request in its cell', () => {
    const table = cacheTable(result).join('\n');
    expect(table).toContain('0.600 ($1.50; 2 c; 20.0k)');
    expect(table).toContain('0.790 ($1.50; 2 c; 12.0k)');
  });

  it('has a row of ours beside the sliding window at our tokens', () => {
    const rows = equalTokenTable(result);
    expect(rows.at(-1)).toBe(
      '| cc/one @ 24k | compactor | 20000 | 0.600 | $1.50 | 27000 | 19800 | 0.810 | $1.50 |',
    );
    expect(equalTokenTable({ ...result, runs: [run('compactor', {})] })).toEqual([]);
  });

  it('has a ceiling row beside ours and the best baseline that measured the cache (ADR-0315)', () => {
    const ceiling = {
      calls: 10,
      cachedShare: 0.9,
      threadOnlyShare: 0.85,
      newTokens: 40_000,
      costFloorUsd: 0.15,
    };
    const withCeiling = {
      ...result,
      runs: [
        { ...result.runs[0]!, cacheCeiling: ceiling },
        result.runs[1]!,
        run('preset:pi', { cache: figures(10, 100_000, 0.95) }),
      ],
    } as EvaluationResult;
    expect(ceilingTable(withCeiling).at(-1)).toBe(
      '| cc/one @ 24k | 0.900 | 0.850 | $0.15 | 0.600 ($1.50) | 0.790 ($1.50; sliding-window) |',
    );
    expect(cacheTable(withCeiling).join('\n')).toContain('| cc/one @ 24k | 0.900 | 0.850 |');
    expect(ceilingTable(result)).toEqual([]);
  });
});
