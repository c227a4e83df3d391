import type { Logger } from '@compactor/core';
import type {
  CompactionJobFinishedEvent,
  CompactionJobOutcome,
  CompactionWorkerOptions,
} from './compaction-worker-types.js';
import { summarizeFailure } from './failure-classification.js';
import type { AttemptOutcome } from './run-attempt.js';

/** The metrics event for an attempt; `willRetry` decides between `retrying` and `failed`. */
export function finishedEvent(
  jobId: string,
  attempt: number,
  outcome: AttemptOutcome,
  willRetry: boolean,
): CompactionJobFinishedEvent {
  const base = { jobId, job: outcome.job, attempt, durationMs: outcome.durationMs };
  switch (outcome.kind) {
    case 'completed':
      return { ...base, outcome: 'completed', result: outcome.result };
    case 'interrupted':
      return { ...base, outcome: 'interrupted' };
    case 'failed': {
      const label: CompactionJobOutcome = willRetry ? 'retrying' : 'failed';
      return {
        ...base,
        outcome: label,
        error: { ...summarizeFailure(outcome.error), permanent: outcome.permanent },
      };
    }
  }
}

/** Metrics must never break job processing: a throwing hook is logged and ignored. */
export function notifyJobFinished(
  hook: CompactionWorkerOptions['onJobFinished'],
  event: CompactionJobFinishedEvent,
  logger: Logger,
): void {
  if (!hook) return;
  try {
    hook(event);
  } catch (error) {
    logger.warn({ jobId: event.jobId, error: summarizeFailure(error) }, 'onJobFinished hook threw');
  }
}

export function logAttempt(logger: Logger, event: CompactionJobFinishedEvent): void {
  const details = {
    jobId: event.jobId,
    tenantId: event.job?.tenantId,
    threadId: event.job?.threadId,
    attempt: event.attempt,
    durationMs: Math.round(event.durationMs),
    outcome: event.outcome,
    status: event.result?.status,
    error: event.error,
  };
  if (event.outcome === 'failed') logger.error(details, 'compaction check failed');
  else if (event.outcome === 'retrying') logger.warn(details, 'compaction check failed; will retry');
  else if (event.outcome === 'interrupted') logger.warn(details, 'compaction check interrupted by shutdown');
  else logger.debug(details, 'compaction check completed');
}
