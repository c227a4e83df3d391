import { randomUUID } from 'node:crypto';
import type { CompactionCheckJob } from '@compactor/core';

/**
 * Keys that identify a thread inside the queue. `encodeURIComponent` escapes `:` (BullMQ rejects it
 * in custom ids), `/` (our separator, so distinct tenant/thread pairs never collide), `{` and `}`
 * (a Redis Cluster hash tag inside a key would move it to another slot) and `%` itself.
 *
 * @param tenantId - The tenant.
 * @param threadId - The thread.
 * @returns `<tenant>/<thread>`, each part escaped.
 */
export function threadKey(tenantId: string, threadId: string): string {
  return `${encodeURIComponent(tenantId)}/${encodeURIComponent(threadId)}`;
}

/**
 * Automatic checks (append, sweeper) of one thread share this key, so a burst collapses into one
 * check. Manual requests get no shared key: each one runs, so none is swallowed by an automatic
 * check or by another manual request.
 *
 * @param job - The job.
 * @returns The key, or undefined for a manual request.
 */
export function deduplicationKey(job: CompactionCheckJob): string | undefined {
  return job.reason === 'manual' ? undefined : `check/${threadKey(job.tenantId, job.threadId)}`;
}

/**
 * Unique per enqueued job (deduplication replaces jobs, so ids must not repeat); readable in tools.
 * The last segment starts with the time its debounce window opened (`<ms>.<uuid>`), so a producer
 * replacing a delayed check learns the window's start from the id alone.
 */
export function newJobId(job: CompactionCheckJob, windowStartedAt: number = Date.now()): string {
  const kind = job.reason === 'manual' ? 'manual' : 'check';
  return `${kind}/${threadKey(job.tenantId, job.threadId)}/${Math.floor(windowStartedAt)}.${randomUUID()}`;
}

/** The window start written by `newJobId`, or undefined for an id of another shape. */
export function windowStartOfJobId(jobId: string): number | undefined {
  const match = /\/(\d+)\.[^/]+$/.exec(jobId);
  return match ? Number(match[1]) : undefined;
}
