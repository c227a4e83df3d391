import type { CompactionJobFinishedEvent } from '@compactor/queue';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The worker's Prometheus metrics. */
export interface WorkerMetrics {
  jobs: Counter<'outcome' | 'status'>;
  jobDuration: Histogram<'outcome'>;
  tokensFreed: Counter;
  summarizerCost: Counter;
  compactionsCommitted: Counter;
  lostRaces: Counter;
  sweeperEnqueues: Counter<'outcome'>;
  /** The queue's `onJobFinished` hook. */
  recordJobFinished(event: CompactionJobFinishedEvent): void;
}

function reuse<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/**
 * The worker's metrics in `registry`. Registering twice in one registry returns the same metrics,
 * so several workers in one process (the CLI's all-in-one mode) can share a registry.
 *
 * @param registry - The Prometheus registry.
 * @returns The metrics.
 */
export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  const registers = [registry];
  const jobs = reuse(
    registry,
    'compactor_worker_jobs_total',
    () =>
      new Counter({
        name: 'compactor_worker_jobs_total',
        help: 'Compaction check attempts, by outcome (completed, retrying, failed, interrupted) and status (the check result, or the error code)',
        labelNames: ['outcome', 'status'],
        registers,
      }),
  );
  const jobDuration = reuse(
    registry,
    'compactor_worker_job_duration_seconds',
    () =>
      new Histogram({
        name: 'compactor_worker_job_duration_seconds',
        help: 'Duration of compaction check attempts, by outcome',
        labelNames: ['outcome'],
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
        registers,
      }),
  );
  const tokensFreed = reuse(
    registry,
    'compactor_worker_tokens_freed_total',
    () =>
      new Counter({
        name: 'compactor_worker_tokens_freed_total',
        help: 'Prompt tokens freed by committed compaction plans',
        registers,
      }),
  );
  const summarizerCost = reuse(
    registry,
    'compactor_worker_summarizer_cost_usd_total',
    () =>
      new Counter({
        name: 'compactor_worker_summarizer_cost_usd_total',
        help: 'Summarizer spend in US dollars, lost races included (the calls were paid for)',
        registers,
      }),
  );
  const compactionsCommitted = reuse(
    registry,
    'compactor_worker_compactions_committed_total',
    () =>
      new Counter({
        name: 'compactor_worker_compactions_committed_total',
        help: 'Compaction plan versions committed',
        registers,
      }),
  );
  const lostRaces = reuse(
    registry,
    'compactor_worker_lost_races_total',
    () =>
      new Counter({
        name: 'compactor_worker_lost_races_total',
        help: 'Checks whose plan commit lost the version compare-and-set to another worker',
        registers,
      }),
  );
  const sweeperEnqueues = reuse(
    registry,
    'compactor_worker_sweeper_enqueues_total',
    () =>
      new Counter({
        name: 'compactor_worker_sweeper_enqueues_total',
        help: 'Threads marked pending that the sweeper handled, by outcome (enqueued, failed)',
        labelNames: ['outcome'],
        registers,
      }),
  );
  return {
    jobs,
    jobDuration,
    tokensFreed,
    summarizerCost,
    compactionsCommitted,
    lostRaces,
    sweeperEnqueues,
    recordJobFinished(event) {
      const status = event.result?.status ?? event.error?.code ?? (event.error ? 'error' : 'none');
      jobs.inc({ outcome: event.outcome, status });
      jobDuration.observe({ outcome: event.outcome }, event.durationMs / 1000);
      const result = event.result;
      if (event.outcome !== 'completed' || !result) return;
      if (result.summarizerCostUsd) summarizerCost.inc(result.summarizerCostUsd);
      if (result.planVersion !== undefined) {
        compactionsCommitted.inc();
        if (result.tokensFreed) tokensFreed.inc(result.tokensFreed);
      }
      if (result.status === 'conflict') lostRaces.inc();
    },
  };
}
