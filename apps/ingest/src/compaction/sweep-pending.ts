import { type EventStore, type JobQueue, type Logger, noopLogger } from '@compactor/core';
import { Registry } from 'prom-client';
import { createIngestMetrics } from '../metrics/ingest-metrics.js';

export interface SweepPendingOptions {
  events: EventStore;
  queue: JobQueue;
  logger?: Logger;
  /** Where `compactor_pending_threads_swept_total` is counted. */
  metrics?: Registry;
  /** Threads handled per sweep. Default 100. */
  limit?: number;
  /** Debounce of the checks enqueued; default 0 (they waited long enough). */
  debounceMs?: number;
}

export interface SweepPendingResult {
  enqueued: Array<{ tenantId: string; threadId: string; version: number }>;
  failed: Array<{ tenantId: string; threadId: string }>;
}

/**
 * Enqueue a compaction check for every thread marked pending (an append whose enqueue failed),
 * clearing the mark once the check is enqueued. The worker app runs this on an interval.
 *
 * The mark has no compare-and-set, so an append that failed to enqueue and marked the thread
 * between our enqueue and our clear would lose its mark: after clearing, the thread is read
 * again, and if it moved on, one more check is enqueued (or the mark set back).
 */
export async function sweepPending(options: SweepPendingOptions): Promise<SweepPendingResult> {
  const logger = options.logger ?? noopLogger;
  const metrics = createIngestMetrics(options.metrics ?? new Registry());
  const debounceMs = options.debounceMs ?? 0;
  const result: SweepPendingResult = { enqueued: [], failed: [] };
  const pending = await options.events.listCompactionPending(options.limit ?? 100);
  for (const { tenantId, threadId } of pending) {
    try {
      const before = await options.events.getThread(tenantId, threadId);
      if (!before) continue;
      await options.queue.enqueueCompactionCheck(
        { tenantId, threadId, version: before.version, reason: 'sweeper' },
        { debounceMs },
      );
      await options.events.setCompactionPending(tenantId, threadId, false);
      const after = await options.events.getThread(tenantId, threadId);
      if (after && after.version !== before.version) {
        try {
          await options.queue.enqueueCompactionCheck(
            { tenantId, threadId, version: after.version, reason: 'sweeper' },
            { debounceMs },
          );
        } catch (error) {
          await options.events.setCompactionPending(tenantId, threadId, true);
          throw error;
        }
      }
      result.enqueued.push({ tenantId, threadId, version: after?.version ?? before.version });
      metrics.pendingSwept.inc({ outcome: 'enqueued' });
    } catch (error) {
      result.failed.push({ tenantId, threadId });
      metrics.pendingSwept.inc({ outcome: 'failed' });
      logger.warn({ tenantId, threadId, err: error }, 'sweeper could not enqueue a pending thread');
    }
  }
  if (result.enqueued.length + result.failed.length > 0) {
    logger.info(
      { enqueued: result.enqueued.length, failed: result.failed.length },
      'swept threads pending compaction',
    );
  }
  return result;
}
