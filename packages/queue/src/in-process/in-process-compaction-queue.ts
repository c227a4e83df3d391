import { randomUUID } from 'node:crypto';
import {
  type CompactionCheckJob,
  CompactorError,
  type EnqueueOptions,
  type JobQueue,
  type Logger,
  noopLogger,
} from '@compactor/core';
import { compactionCheckJobSchema, parseCompactionCheckJob } from '../compaction-check-job-schema.js';
import type { CompactionWorker, CompactionWorkerOptions } from '../compaction-worker-types.js';
import {
  debounceDelay,
  defaultDebounceMs,
  defaultMaxWaitMs,
  delayWithinWindow,
  maxWaitOf,
} from '../debounce.js';
import { deduplicationKey, newJobId } from '../job-keys.js';
import { exponentialBackoffDelay, type RetryPolicy, resolveRetryPolicy } from '../retry-policy.js';
import { InProcessConsumer } from './in-process-consumer.js';
import type { DeferredRequest, InProcessEntry } from './in-process-entry.js';

/** How the in-process queue retries and debounces. */
export interface InProcessCompactionQueueOptions {
  /** Attempts and backoff. @defaultValue {@link defaultRetryPolicy} (as the BullMQ queue) */
  retry?: Partial<RetryPolicy>;
  /** Debounce of automatic checks when the caller gives none. @defaultValue 1,000 */
  defaultDebounceMs?: number;
  /** Longest wait of a debounce window that keeps being restarted, when the caller gives none. @defaultValue 10,000 */
  defaultMaxWaitMs?: number;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
  /**
   * Told, when the queue closes, of the checks it still held and will never run (debouncing, waiting
   * or deferred behind a running one), so the caller can mark their threads pending for the sweeper.
   * A failure here is logged, never thrown from `close`.
   */
  onUnrunChecks?: (jobs: CompactionCheckJob[]) => Promise<void>;
}

/**
 * The embedded mode's queue: the BullMQ queue's contract without Redis. Same deduplication rules
 * (replace while debouncing, run-next while running, absorbed while waiting), retries with the
 * same backoff, permanent failures not retried, interrupted checks requeued. Checks still queued
 * when the queue closes are handed to `onUnrunChecks` (the runtime marks their threads pending, so
 * the sweeper finds them again on the next start); a crash loses them as any process memory.
 */
export class InProcessCompactionQueue implements JobQueue {
  readonly retry: RetryPolicy;
  private readonly logger: Logger;
  private readonly defaultDebounceMs: number;
  private readonly defaultMaxWaitMs: number;
  private readonly onUnrunChecks: ((jobs: CompactionCheckJob[]) => Promise<void>) | undefined;
  private readonly entries = new Map<string, InProcessEntry>();
  private readonly holderByDeduplicationKey = new Map<string, string>();
  private readonly deferredByDeduplicationKey = new Map<string, DeferredRequest>();
  private readonly waiting: InProcessEntry[] = [];
  private consumer: InProcessConsumer | undefined;
  private closed = false;

  /**
   * @param options - Retry policy, debounce and logger.
   * @throws RangeError for an invalid retry policy.
   */
  constructor(options: InProcessCompactionQueueOptions = {}) {
    this.retry = resolveRetryPolicy(options.retry);
    this.logger = options.logger ?? noopLogger;
    this.defaultDebounceMs = options.defaultDebounceMs ?? defaultDebounceMs;
    this.defaultMaxWaitMs = maxWaitOf(undefined, options.defaultMaxWaitMs ?? defaultMaxWaitMs);
    this.onUnrunChecks = options.onUnrunChecks;
  }

  async enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void> {
    // The parsed payload is a new object (zod copies what it parses), so producer and handler
    // already share nothing; no further clone.
    const payload = parseCompactionCheckJob(job);
    this.add(
      payload,
      deduplicationKey(payload),
      debounceDelay(payload, options, this.defaultDebounceMs),
      maxWaitOf(options, this.defaultMaxWaitMs),
    );
  }

  /**
   * Enqueue a payload that has not been validated (e.g. decoded from JSON elsewhere). The worker
   * validates it; an invalid one is a permanent failure, as with a bad payload found in Redis.
   *
   * @param data - The payload.
   * @param options - Debounce of this request.
   * @throws CompactorError (code `unavailable`) when the queue is closed.
   */
  async enqueueUnvalidated(data: unknown, options?: EnqueueOptions): Promise<void> {
    this.assertOpen();
    const parsed = compactionCheckJobSchema.safeParse(data);
    const key = parsed.success ? deduplicationKey(parsed.data) : undefined;
    this.add(
      structuredClone(data),
      key,
      Math.max(0, options?.debounceMs ?? 0),
      maxWaitOf(options, this.defaultMaxWaitMs),
    );
  }

  /**
   * Start the one consumer of this queue.
   *
   * @param options - Handler, concurrency, shutdown timeout and listener.
   * @returns The worker; closing it leaves the queue open.
   * @throws CompactorError (code `unavailable`) when the queue is closed or already has a worker.
   */
  async startCompactionWorker(options: CompactionWorkerOptions): Promise<CompactionWorker> {
    this.assertOpen();
    if (this.consumer) {
      throw new CompactorError('unavailable', 'this in-process queue already has a running worker');
    }
    const consumer = new InProcessConsumer(this, options, options.logger ?? this.logger);
    this.consumer = consumer;
    consumer.pump();
    return { close: (deadline) => consumer.close(deadline) };
  }

  /** Closes the worker (gracefully) and drops checks not yet started. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.consumer?.close();
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    const unrun = this.unrunChecks();
    if (unrun.length > 0) {
      this.logger.warn({ unrun: unrun.length }, 'in-process queue closed with checks still queued');
    }
    this.entries.clear();
    this.waiting.length = 0;
    this.holderByDeduplicationKey.clear();
    this.deferredByDeduplicationKey.clear();
    if (unrun.length > 0 && this.onUnrunChecks) {
      try {
        await this.onUnrunChecks(unrun);
      } catch (error) {
        this.logger.error({ err: error, unrun: unrun.length }, 'could not hand over the unrun checks');
      }
    }
  }

  /** Every valid check still held (one per thread and reason), entries first, then deferred ones. */
  private unrunChecks(): CompactionCheckJob[] {
    const payloads = [
      ...[...this.entries.values()].map((entry) => entry.data),
      ...[...this.deferredByDeduplicationKey.values()].map((deferred) => deferred.data),
    ];
    const jobs: CompactionCheckJob[] = [];
    for (const payload of payloads) {
      const parsed = compactionCheckJobSchema.safeParse(payload);
      if (parsed.success) jobs.push(parsed.data as CompactionCheckJob);
    }
    return jobs;
  }

  // ---- used by the consumer ----

  /**
   * The next waiting entry, now active.
   *
   * @returns The entry, or undefined when none waits.
   * @internal
   */
  takeNext(): InProcessEntry | undefined {
    const entry = this.waiting.shift();
    if (entry) entry.state = 'active';
    return entry;
  }

  /**
   * The attempt succeeded: forget the entry.
   *
   * @param entry - The entry.
   * @internal
   */
  completed(entry: InProcessEntry): void {
    this.finalize(entry);
  }

  /**
   * The attempt failed: schedule the next with backoff, or forget the entry.
   *
   * @param entry - The entry.
   * @param willRetry - Whether another attempt is allowed.
   * @internal
   */
  failed(entry: InProcessEntry, willRetry: boolean): void {
    if (!willRetry) {
      this.finalize(entry);
      return;
    }
    entry.failedAttempts += 1;
    this.schedule(entry, exponentialBackoffDelay(entry.failedAttempts, this.retry));
  }

  /**
   * Shutdown stopped the attempt: back to the front of the line, no attempt counted.
   *
   * @param entry - The entry.
   * @internal
   */
  interrupted(entry: InProcessEntry): void {
    if (this.closed) return;
    entry.state = 'waiting';
    this.waiting.unshift(entry);
  }

  /**
   * A closed consumer lets go of the queue, so another may start.
   *
   * @param consumer - The consumer.
   * @internal
   */
  detach(consumer: InProcessConsumer): void {
    if (this.consumer === consumer) this.consumer = undefined;
  }

  // ---- internals ----

  private add(data: unknown, key: string | undefined, requestedDelayMs: number, maxWaitMs: number): void {
    this.assertOpen();
    const now = Date.now();
    if (key !== undefined) {
      const holder = this.entries.get(this.holderByDeduplicationKey.get(key) ?? '');
      if (holder?.state === 'delayed') {
        // Still debouncing (or waiting to retry): replaced by the newer request, timer restarted,
        // but the window keeps its start, so a thread that never goes quiet is still checked. The
        // entry is reused in place (same id: same window), which costs an append no new id, map
        // entries or validation (issue #17).
        this.deferredByDeduplicationKey.delete(key);
        holder.data = data;
        holder.failedAttempts = 0;
        holder.maxWaitMs = maxWaitMs;
        const delayMs = delayWithinWindow(requestedDelayMs, holder.windowStartedAt, maxWaitMs, now);
        // Later than the running timer: it re-arms itself for the rest when it fires (ADR-0242),
        // so an append under load moves a number instead of a timer.
        if (
          delayMs > 0 &&
          holder.timer !== undefined &&
          holder.dueAt !== undefined &&
          now + delayMs >= holder.dueAt
        ) {
          holder.dueAt = now + delayMs;
          return;
        }
        clearTimeout(holder.timer);
        this.schedule(holder, delayMs);
        return;
      } else if (holder?.state === 'active') {
        this.deferredByDeduplicationKey.set(key, { data, delayMs: requestedDelayMs, maxWaitMs });
        return;
      } else if (holder?.state === 'waiting') {
        // Already due and waiting for a worker: it reads the thread's newest version when it runs.
        return;
      }
    }
    const entry: InProcessEntry = {
      id: this.entryId(data),
      data,
      deduplicationKey: key,
      failedAttempts: 0,
      state: 'delayed',
      windowStartedAt: now,
      maxWaitMs,
    };
    this.entries.set(entry.id, entry);
    if (key !== undefined) this.holderByDeduplicationKey.set(key, entry.id);
    this.schedule(entry, requestedDelayMs);
  }

  private schedule(entry: InProcessEntry, delayMs: number): void {
    if (delayMs <= 0) {
      this.promote(entry);
      return;
    }
    entry.state = 'delayed';
    entry.dueAt = Date.now() + delayMs;
    entry.timer = setTimeout(() => this.fire(entry), delayMs);
  }

  /** A delayed entry's timer: promote it, or re-arm for what a later request added to its delay. */
  private fire(entry: InProcessEntry): void {
    const remainingMs = (entry.dueAt ?? 0) - Date.now();
    if (remainingMs > 0) {
      entry.timer = setTimeout(() => this.fire(entry), remainingMs);
      return;
    }
    this.promote(entry);
  }

  private promote(entry: InProcessEntry): void {
    entry.timer = undefined;
    entry.dueAt = undefined;
    entry.state = 'waiting';
    this.waiting.push(entry);
    this.consumer?.pump();
  }

  private remove(entry: InProcessEntry): void {
    clearTimeout(entry.timer);
    this.entries.delete(entry.id);
    const index = this.waiting.indexOf(entry);
    if (index >= 0) this.waiting.splice(index, 1);
  }

  private finalize(entry: InProcessEntry): void {
    this.remove(entry);
    const key = entry.deduplicationKey;
    if (key === undefined || this.holderByDeduplicationKey.get(key) !== entry.id) return;
    this.holderByDeduplicationKey.delete(key);
    const deferred = this.deferredByDeduplicationKey.get(key);
    if (!deferred || this.closed) return;
    this.deferredByDeduplicationKey.delete(key);
    this.add(deferred.data, key, deferred.delayMs, deferred.maxWaitMs);
  }

  private entryId(data: unknown): string {
    const parsed = compactionCheckJobSchema.safeParse(data);
    return parsed.success ? newJobId(parsed.data) : `invalid/${randomUUID()}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new CompactorError('unavailable', 'the in-process compaction queue is closed');
  }
}

/**
 * Create an in-process queue.
 *
 * @param options - Retry policy, debounce and logger.
 * @returns The queue.
 * @throws RangeError for an invalid retry policy.
 */
export function createInProcessCompactionQueue(
  options?: InProcessCompactionQueueOptions,
): InProcessCompactionQueue {
  return new InProcessCompactionQueue(options);
}
