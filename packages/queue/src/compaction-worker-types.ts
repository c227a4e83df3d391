import type { CompactionCheckJob, Logger } from '@compactor/core';
import type { FailureSummary } from './failure-classification.js';
import type { ShutdownDeadline } from './shutdown-deadline.js';

/** What one check ended with: the planner's statuses plus `conflict` (lost the plan CAS) and `skipped`. */
export type CompactionCheckStatus =
  | 'compacted'
  | 'unchanged'
  | 'target_unreachable'
  | 'disabled'
  | 'conflict'
  | 'skipped';

/** The handler's result; JSON-serializable, because BullMQ stores it as the job's return value. */
export interface CompactionJobResult {
  status: CompactionCheckStatus;
  /** The plan version committed by this check, when it committed one. */
  planVersion?: number;
  tokensFreed?: number;
  summarizerCostUsd?: number;
}

/** What a handler gets besides the job. */
export interface CompactionJobContext {
  jobId: string;
  /** 1 for the first attempt; an attempt interrupted by shutdown is not counted. */
  attempt: number;
  /** Total attempts the retry policy allows for this job. */
  maxAttempts: number;
  /**
   * Fires when the worker is shutting down and its grace period is over. Stop promptly: the job
   * goes back to the queue and runs again (on another worker, or after the restart).
   */
  signal: AbortSignal;
  /** The worker's logger with the job's ids bound into every entry. */
  logger: Logger;
}

/** Runs one check; throw to fail the attempt (a non-retryable `CompactorError` fails the job for good). */
export type CompactionJobHandler = (
  job: CompactionCheckJob,
  context: CompactionJobContext,
) => Promise<CompactionJobResult>;

/**
 * How one attempt ended: `completed`; `retrying` (failed, another attempt is scheduled); `failed`
 * (permanently, or out of attempts; `permanent` says which); `interrupted` (shutdown; requeued,
 * not counted as an attempt).
 */
export type CompactionJobOutcome = 'completed' | 'retrying' | 'failed' | 'interrupted';

/** One attempt's end, for metrics. */
export interface CompactionJobFinishedEvent {
  jobId: string;
  /** Undefined when the payload failed validation. */
  job: CompactionCheckJob | undefined;
  outcome: CompactionJobOutcome;
  /** The attempt that just ended, 1-based. */
  attempt: number;
  durationMs: number;
  result?: CompactionJobResult;
  error?: FailureSummary & { permanent: boolean };
}

/** The handler and how a worker runs it. */
export interface CompactionWorkerOptions {
  handler: CompactionJobHandler;
  /** Checks run at once by this worker. @defaultValue 4 */
  concurrency?: number;
  /**
   * The whole time `close()` may take when no deadline is passed to it: running checks get it,
   * less what requeueing them and closing connections needs (ADR-0100). @defaultValue 30,000
   */
  shutdownTimeoutMs?: number;
  /** @defaultValue the queue's logger (`noopLogger` for BullMQ) */
  logger?: Logger;
  /** Called after every attempt, for metrics. Errors it throws are logged and ignored. */
  onJobFinished?: (event: CompactionJobFinishedEvent) => void;
}

/** A running consumer. */
export interface CompactionWorker {
  /**
   * Graceful: stop taking jobs, wait for running ones, abort the rest early enough that they go
   * back to the queue and the connections are released by `deadline` (default: `shutdownTimeoutMs`
   * from now), whatever the queue's server does. Idempotent: a second call returns the first close.
   */
  close(deadline?: ShutdownDeadline): Promise<void>;
}

export const defaultConcurrency = 4;
export const defaultShutdownTimeoutMs = 30_000;
