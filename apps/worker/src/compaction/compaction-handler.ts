import type { CompactionEngine } from '@compactor/engine';
import type { CompactionJobHandler } from '@compactor/queue';
import { jobResultOf } from './job-result.js';

/**
 * The queue handler: one engine check per job. A manual job compacts whatever the trigger says.
 * The shutdown signal reaches the planner and the summarizer, so an interrupted check stops
 * promptly and goes back to the queue. Errors are the engine's: a thread that does not exist is
 * a NotFoundError, which is not retryable, so the queue fails the job at once.
 *
 * @param engine - The compaction engine (its `check`).
 * @returns The handler.
 */
export function createCompactionHandler(engine: Pick<CompactionEngine, 'check'>): CompactionJobHandler {
  return async (job, context) => {
    const manual = job.manual ?? (job.reason === 'manual' ? {} : undefined);
    const result = await engine.check(job.tenantId, job.threadId, {
      ...(manual ? { manual } : {}),
      signal: context.signal,
    });
    return jobResultOf(result);
  };
}
