import type { CompactionCheckJob, EventStore, JobQueue, Logger } from '@compactor/core';
import type { IngestMetrics } from '../metrics/ingest-metrics.js';

export interface EnqueueCheckContext {
  events: EventStore;
  queue: JobQueue;
  logger: Logger;
  metrics: IngestMetrics;
  debounceMs: number;
}

export type EnqueueOutcome = 'enqueued' | 'marked_pending' | 'lost_until_next_append';

/**
 * Enqueue a compaction check after events were stored. The append never depends on the queue:
 * when the enqueue fails the thread is marked pending for the sweeper, and the caller still
 * answers success, because the events are already stored.
 */
export async function enqueueCheckOrMarkPending(
  context: EnqueueCheckContext,
  job: CompactionCheckJob,
): Promise<EnqueueOutcome> {
  try {
    await context.queue.enqueueCompactionCheck(job, { debounceMs: context.debounceMs });
    return 'enqueued';
  } catch (enqueueError) {
    const ids = { tenantId: job.tenantId, threadId: job.threadId, version: job.version };
    try {
      await context.events.setCompactionPending(job.tenantId, job.threadId, true);
      context.metrics.enqueueFailures.inc({ reason: 'queue' });
      context.logger.warn(
        { ...ids, err: enqueueError },
        'compaction check could not be enqueued; thread marked pending for the sweeper',
      );
      return 'marked_pending';
    } catch (flagError) {
      // Events are stored either way; only this check is lost, and the next append retries it.
      context.metrics.enqueueFailures.inc({ reason: 'queue_and_pending_flag' });
      context.logger.error(
        { ...ids, err: enqueueError, flagError },
        'compaction check could not be enqueued nor the thread marked pending',
      );
      return 'lost_until_next_append';
    }
  }
}
