import { describe, expect, it } from 'vitest';
import type { EvaluationResult, RunMetrics, WindowQuestions } from '../src/eval/eval-types.js';
import { cacheRetentionTable, cacheTable } from '../src/eval/format-eval-report.js';
import type { CacheFigures } from '../src/eval/prompt-cache.js';
import { emptyTally } from '../src/eval/qa-tally.js';

/** Cache figures with a share and a cost; the rest is not read by the retention table. */
function figures(share: number, costUsd: number): CacheFigures {
  return {
    calls: 10,
    cachedShare: share,
    inputTokens: 50_000,
    uncachedTokens: 5_000,
    commits: 2,
    emergencyFits: 0,
    emergencyDropped: { messages: 0, summaries: 0, trimmedSummaries: 0, summaryItems: 0, clearedResults: 0 },
    breaks: 1,
    uncachedBy: { commit: 0, emergencyFit: 0, other: 0, recall: 0 },
    costUsd,
    openAiCostUsd: costUsd,
    uncachedCostUsd: 1,
  };
}

/** Strict evidence `evidence` of `questions`, split early / late as given. */
function asked(evidence: number, questions: number, early = evidence): WindowQuestions {
  const tally = (found: number, of: number) => ({ ...emptyTally(), questions: of, evidence: found });
  return {
    overall: tally(evidence, questions),
    early: tally(early, questions / 2),
    late: tally(evidence - early, questions / 2),
    meanTokens: 3_000,
  };
}

function run(system: string, extra: Partial<RunMetrics>): RunMetrics {
  return {
    system,
    transcript: 'locomo#0',
    kind: 'locomo',
    window: 16_000,
    ceiling: 12_000,
    transcriptTokens: 30_000,
    requestTokens: 11_000,
    withinBudget: true,
    valid: true,
    validationErrors: [],
    compressionRatio: 2,
    retention: { overall: { retained: 0, total: 0 }, byKind: {} },
    elapsedMs: 1,
    ...extra,
  };
}

function result(runs: RunMetrics[]): EvaluationResult {
  return {
    systems: [...new Set(runs.map((row) => row.system))].map((name) => ({ name, source: '' })),
    runs,
  } as unknown as EvaluationResult;
}

describe('retention beside the cache (ADR-0365)', () => {
  const ours = run('compactor', { cache: figures(0.9, 0.74), questions: asked(80, 100, 30) });

  it('gives each system its cached share, cost and strict evidence on the same run', () => {
    const table = cacheRetentionTable(
      result([ours, run('sliding-window', { cache: figures(0.91, 0.37), questions: asked(20, 100, 0) })]),
    );
    expect(table).toContain(
      '| locomo#0 @ 16k | compactor | 0.900 | $0.74 | 80.0% (80/100) | 60.0% | 100.0% | 3000 |',
    );
    expect(table).toContain(
      '| locomo#0 @ 16k | sliding-window | 0.910 | $0.37 | 20.0% (20/100) | 0.0% | 40.0% | 3000 |',
    );
    expect(table.at(-1)).toBe('- locomo#0 @ 16k: no baseline keeps our strict evidence (80.0%); ours $0.74.');
  });

  it('names the cheapest baseline keeping at least our strict evidence, not the cheapest at all nor a preset', () => {
    const table = cacheRetentionTable(
      result([
        ours,
        run('preset:pi', { cache: figures(0.95, 0.1), questions: asked(95, 100) }),
        run('cheap-forgetful', { cache: figures(0.92, 0.3), questions: asked(50, 100) }),
        run('keeps-more-dear', { cache: figures(0.8, 2.0), questions: asked(85, 100) }),
        run('keeps-as-much', { cache: figures(0.85, 1.8), questions: asked(80, 100) }),
      ]),
    );
    expect(table.at(-1)).toBe(
      '- locomo#0 @ 16k: the cheapest baseline keeping at least our strict evidence (80.0%) is keeps-as-much, $1.80 (80.0%); ours $0.74.',
    );
  });

  it('is left out of the cache report when no run asked questions (coding runs)', () => {
    const coding = result([run('compactor', { cache: figures(0.9, 0.74) })]);
    expect(cacheRetentionTable(coding)).toEqual([]);
    expect(cacheTable(coding).join('\n')).not.toContain('Retention beside the cache');
    expect(cacheTable(result([ours])).join('\n')).toContain('Retention beside the cache');
  });
});
