import type { CompactionCheckJob, Logger } from '@compactor/core';
import { parseCompactionCheckJob } from './compaction-check-job-schema.js';
import type { CompactionJobHandler, CompactionJobResult } from './compaction-worker-types.js';
import { isPermanentFailure } from './failure-classification.js';
import { loggerWithFields } from './job-logger.js';

export interface AttemptInput {
  jobId: string;
  data: unknown;
  attempt: number;
  maxAttempts: number;
  handler: CompactionJobHandler;
  /** The worker's shutdown signal, fired when the grace period is over. */
  shutdownSignal: AbortSignal;
  logger: Logger;
}

export type AttemptSettlement =
  | { kind: 'completed'; job: CompactionCheckJob; result: CompactionJobResult }
  | { kind: 'failed'; job: CompactionCheckJob | undefined; error: unknown; permanent: boolean }
  | { kind: 'interrupted'; job: CompactionCheckJob };

export type AttemptOutcome = AttemptSettlement & { durationMs: number };

/**
 * One attempt, shared by both queues: validate the payload (invalid = permanent failure, the
 * handler never sees it), run the handler, and stop waiting for it once shutdown fires.
 */
export async function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const startedAt = performance.now();
  const settle = (settlement: AttemptSettlement): AttemptOutcome => ({
    ...settlement,
    durationMs: performance.now() - startedAt,
  });

  let job: CompactionCheckJob;
  try {
    job = parseCompactionCheckJob(input.data);
  } catch (error) {
    return settle({ kind: 'failed', job: undefined, error, permanent: true });
  }

  const logger = loggerWithFields(input.logger, {
    jobId: input.jobId,
    tenantId: job.tenantId,
    threadId: job.threadId,
    attempt: input.attempt,
  });
  const context = {
    jobId: input.jobId,
    attempt: input.attempt,
    maxAttempts: input.maxAttempts,
    signal: input.shutdownSignal,
    logger,
  };
  if (input.shutdownSignal.aborted) return settle({ kind: 'interrupted', job });
  const handled: Promise<AttemptSettlement> = Promise.resolve()
    .then(() => input.handler(job, context))
    .then(
      (result): AttemptSettlement => ({ kind: 'completed', job, result }),
      (error: unknown): AttemptSettlement =>
        input.shutdownSignal.aborted
          ? { kind: 'interrupted', job }
          : { kind: 'failed', job, error, permanent: isPermanentFailure(error) },
    );
  return settle(await raceWithAbort(handled, input.shutdownSignal, { kind: 'interrupted', job }));
}

/** Settle with `onAbort` if the signal fires first; the listener is removed either way. */
function raceWithAbort<T>(promise: Promise<T>, signal: AbortSignal, onAbort: T): Promise<T> {
  return new Promise((resolve) => {
    const aborted = () => resolve(onAbort);
    signal.addEventListener('abort', aborted, { once: true });
    void promise.then((value) => {
      signal.removeEventListener('abort', aborted);
      resolve(value);
    });
  });
}
