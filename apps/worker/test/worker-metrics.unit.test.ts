import type { CompactionJobFinishedEvent } from '@compactor/queue';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createWorkerMetrics } from '../src/index.js';
import { metricValue } from './support/metric-values.js';

const job = { tenantId: 'tenant-a', threadId: 'thread-1', version: 4, reason: 'append' as const };

function finished(overrides: Partial<CompactionJobFinishedEvent>): CompactionJobFinishedEvent {
  return { jobId: 'job-1', job, outcome: 'completed', attempt: 1, durationMs: 1_500, ...overrides };
}

describe('worker metrics', () => {
  it('counts jobs by outcome and status, durations, commits, tokens, cost and lost races', async () => {
    const registry = new Registry();
    const metrics = createWorkerMetrics(registry);
    metrics.recordJobFinished(
      finished({
        result: { status: 'compacted', planVersion: 1, tokensFreed: 12_000, summarizerCostUsd: 0.01 },
      }),
    );
    metrics.recordJobFinished(
      finished({
        result: { status: 'compacted', planVersion: 2, tokensFreed: 3_000, summarizerCostUsd: 0.02 },
      }),
    );
    metrics.recordJobFinished(finished({ result: { status: 'conflict', summarizerCostUsd: 0.005 } }));
    metrics.recordJobFinished(finished({ result: { status: 'skipped' }, durationMs: 3 }));
    metrics.recordJobFinished(
      finished({
        outcome: 'failed',
        error: {
          name: 'NotFoundError',
          message: 'thread x was not found',
          code: 'not_found',
          permanent: true,
        },
      }),
    );
    metrics.recordJobFinished(
      finished({
        outcome: 'retrying',
        error: { name: 'Error', message: 'socket hang up', permanent: false },
      }),
    );
    metrics.recordJobFinished(finished({ outcome: 'interrupted' }));

    expect(await metricValue(registry, 'compactor_worker_jobs_total', { outcome: 'completed' })).toBe(4);
    expect(
      await metricValue(registry, 'compactor_worker_jobs_total', {
        outcome: 'completed',
        status: 'compacted',
      }),
    ).toBe(2);
    expect(
      await metricValue(registry, 'compactor_worker_jobs_total', { outcome: 'failed', status: 'not_found' }),
    ).toBe(1);
    expect(
      await metricValue(registry, 'compactor_worker_jobs_total', { outcome: 'retrying', status: 'error' }),
    ).toBe(1);
    expect(await metricValue(registry, 'compactor_worker_jobs_total', { outcome: 'interrupted' })).toBe(1);
    expect(await metricValue(registry, 'compactor_worker_compactions_committed_total')).toBe(2);
    expect(await metricValue(registry, 'compactor_worker_tokens_freed_total')).toBe(15_000);
    expect(await metricValue(registry, 'compactor_worker_summarizer_cost_usd_total')).toBeCloseTo(0.035, 10);
    expect(await metricValue(registry, 'compactor_worker_lost_races_total')).toBe(1);
    expect(
      await metricValue(registry, 'compactor_worker_job_duration_seconds', { outcome: 'completed' }),
    ).toBe(4);
    const text = await registry.metrics();
    expect(text).toContain('compactor_worker_job_duration_seconds_bucket{le="0.01",outcome="completed"} 1');
  });

  it('shares metrics between workers registered in one registry', () => {
    const registry = new Registry();
    const first = createWorkerMetrics(registry);
    const second = createWorkerMetrics(registry);
    expect(second.jobs).toBe(first.jobs);
    expect(second.sweeperEnqueues).toBe(first.sweeperEnqueues);
  });
});
