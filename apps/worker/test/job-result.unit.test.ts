import { emptyPlan, type PlannerOutcome } from '@compactor/core';
import type { CheckResult } from '@compactor/engine';
import { describe, expect, it } from 'vitest';
import { jobResultOf } from '../src/index.js';

const fired = { fire: true, trigger: 'tokens', reason: 'over the threshold' };

function planner(overrides: Partial<PlannerOutcome>): PlannerOutcome {
  return {
    status: 'compacted',
    reason: 'test',
    plan: emptyPlan('thread-1', '2025-06-01T00:00:00.000Z'),
    tokensBefore: 30_000,
    tokensAfter: 12_000,
    targetTokens: 13_000,
    added: [],
    proposals: [],
    rungsUsed: ['summarize'],
    summarizerCalls: 2,
    summarizerCostUsd: 0.004,
    ...overrides,
  };
}

function check(overrides: Partial<CheckResult>): CheckResult {
  return {
    tenantId: 'tenant-a',
    threadId: 'thread-1',
    threadVersion: 40,
    planVersionBefore: 2,
    trigger: fired,
    planner: planner({}),
    commit: { status: 'committed', version: 3 },
    compressionRatio: 2.5,
    outcome: null,
    ...overrides,
  };
}

describe('jobResultOf', () => {
  it('reports a committed plan with its version, the tokens it freed and the summarizer cost', () => {
    expect(jobResultOf(check({}))).toEqual({
      status: 'compacted',
      planVersion: 3,
      tokensFreed: 18_000,
      summarizerCostUsd: 0.004,
    });
  });

  it('keeps target_unreachable when the plan committed did not reach the target', () => {
    const result = jobResultOf(
      check({ planner: planner({ status: 'target_unreachable', tokensAfter: 20_000 }) }),
    );
    expect(result).toEqual({
      status: 'target_unreachable',
      planVersion: 3,
      tokensFreed: 10_000,
      summarizerCostUsd: 0.004,
    });
  });

  it('reports a lost compare-and-set as a conflict, with the cost that was paid', () => {
    expect(jobResultOf(check({ commit: { status: 'lost_race', currentVersion: 3 } }))).toEqual({
      status: 'conflict',
      summarizerCostUsd: 0.004,
    });
  });

  it('says why nothing was committed', () => {
    const notNeeded = { commit: { status: 'not_needed' } } as const;
    expect(jobResultOf(check({ ...notNeeded, planner: null, trigger: { ...fired, fire: false } }))).toEqual({
      status: 'skipped',
    });
    expect(jobResultOf(check({ ...notNeeded, planner: null }))).toEqual({ status: 'disabled' });
    expect(
      jobResultOf(check({ ...notNeeded, planner: planner({ status: 'unchanged', summarizerCostUsd: 0 }) })),
    ).toEqual({ status: 'unchanged', summarizerCostUsd: 0 });
    expect(jobResultOf(check({ ...notNeeded, planner: planner({ status: 'target_unreachable' }) }))).toEqual({
      status: 'target_unreachable',
      summarizerCostUsd: 0.004,
    });
  });
});
