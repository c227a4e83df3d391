import type { EventStore, JobQueue, Logger } from '@compactor/core';

/** Where pending threads are listed and enqueued, and how much one sweep does. */
export interface SweepPendingThreadsOptions {
  events: EventStore;
  queue: JobQueue;
  logger: Logger;
  /** Threads listed per page. @defaultValue 100 */
  pageSize?: number;
  /** Pages per sweep, so one sweep stays bounded. @defaultValue 10 */
  maxPages?: number;
  /** Debounce of the checks enqueued (these threads have waited long enough). @defaultValue 0 */
  debounceMs?: number;
  /** Called once per thread handled, for metrics. */
  onThread?: (outcome: 'enqueued' | 'failed') => void;
}

/** The threads one sweep enqueued a check for, and those it could not. */
export interface SweepResult {
  enqueued: Array<{ tenantId: string; threadId: string; version: number }>;
  failed: Array<{ tenantId: string; threadId: string }>;
}

/**
 * Enqueue a compaction check for every thread marked pending (an append whose enqueue failed:
 * the events were stored, the check was not). The mark is cleared only after the enqueue
 * succeeded, so a failing queue leaves it for the next sweep and no accepted event goes unchecked.
 *
 * The mark has no compare-and-set: an append that fails to enqueue and marks the thread between
 * our enqueue and our clear would lose its mark. So the thread is read again after clearing;
 * if its version moved, one more check is enqueued (or the mark set back if that fails).
 *
 * @param options - Stores, queue, page sizes, debounce and listener.
 * @returns What was enqueued and what failed.
 */
export async function sweepPendingThreads(options: SweepPendingThreadsOptions): Promise<SweepResult> {
  const pageSize = options.pageSize ?? 100;
  const maxPages = options.maxPages ?? 10;
  const result: SweepResult = { enqueued: [], failed: [] };
  for (let page = 0; page < maxPages; page += 1) {
    const pending = await options.events.listCompactionPending(pageSize);
    let failures = 0;
    for (const { tenantId, threadId } of pending) {
      try {
        const version = await sweepThread(options, tenantId, threadId);
        if (version === undefined) continue;
        result.enqueued.push({ tenantId, threadId, version });
        options.onThread?.('enqueued');
      } catch (error) {
        failures += 1;
        result.failed.push({ tenantId, threadId });
        options.onThread?.('failed');
        options.logger.warn({ tenantId, threadId, err: error }, 'sweeper could not enqueue a pending thread');
      }
    }
    // A short page is the last one; after a failure the same threads would be listed again.
    if (pending.length < pageSize || failures > 0) break;
  }
  if (result.enqueued.length + result.failed.length > 0) {
    options.logger.info(
      { enqueued: result.enqueued.length, failed: result.failed.length },
      'swept threads pending compaction',
    );
  }
  return result;
}

/** The version enqueued, or undefined when the thread is gone (its stale mark is cleared). */
async function sweepThread(
  options: SweepPendingThreadsOptions,
  tenantId: string,
  threadId: string,
): Promise<number | undefined> {
  const enqueue = (version: number) =>
    options.queue.enqueueCompactionCheck(
      { tenantId, threadId, version, reason: 'sweeper' },
      { debounceMs: options.debounceMs ?? 0 },
    );
  const before = await options.events.getThread(tenantId, threadId);
  if (!before) {
    options.logger.warn({ tenantId, threadId }, 'pending mark on a thread that does not exist; clearing it');
    await options.events.setCompactionPending(tenantId, threadId, false);
    return undefined;
  }
  await enqueue(before.version);
  await options.events.setCompactionPending(tenantId, threadId, false);
  const after = await options.events.getThread(tenantId, threadId);
  if (!after || after.version === before.version) return before.version;
  try {
    await enqueue(after.version);
  } catch (error) {
    await options.events.setCompactionPending(tenantId, threadId, true);
    throw error;
  }
  return after.version;
}
