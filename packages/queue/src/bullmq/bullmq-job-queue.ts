import {
  type CompactionCheckJob,
  type EnqueueOptions,
  type JobQueue,
  type Logger,
  noopLogger,
} from '@compactor/core';
import { type JobsOptions, Queue } from 'bullmq';
import { parseCompactionCheckJob } from '../compaction-check-job-schema.js';
import {
  debounceDelay,
  defaultDebounceMs,
  defaultMaxWaitMs,
  delayWithinWindow,
  maxWaitOf,
} from '../debounce.js';
import { summarizeFailure } from '../failure-classification.js';
import { deduplicationKey, newJobId, windowStartOfJobId } from '../job-keys.js';
import { type RetryPolicy, resolveRetryPolicy } from '../retry-policy.js';
import { connectionCloseAllowanceMs, connectionDropAllowanceMs, settleWithin } from '../settle-within.js';
import {
  type BullmqQueueLocation,
  compactionCheckJobName,
  resolveLocation,
} from './bullmq-connection-options.js';

/** Where the producer's queue lives, and how its jobs retry, debounce and are kept. */
export interface BullmqJobQueueOptions extends BullmqQueueLocation {
  /** Attempts and backoff, stored on each job. @defaultValue {@link defaultRetryPolicy} (5 attempts, 2 s doubling, 50 % jitter) */
  retry?: Partial<RetryPolicy>;
  /** Debounce of automatic checks when the caller gives none. @defaultValue 1,000 */
  defaultDebounceMs?: number;
  /** Longest wait of a debounce window that keeps being restarted, when the caller gives none. @defaultValue 10,000 */
  defaultMaxWaitMs?: number;
  /**
   * Completed jobs kept for inspection (BullMQ removes older ones as new ones finish).
   * @defaultValue `{ ageSeconds: 3600, count: 1000 }`
   */
  keepCompleted?: { ageSeconds: number; count: number };
  /** Failed jobs kept for inspection. @defaultValue `{ ageSeconds: 604800, count: 10000 }` (a week) */
  keepFailed?: { ageSeconds: number; count: number };
}

/**
 * The producer: one automatic check per thread, debounced. See README "Deduplication and debounce":
 * a new request replaces a check that is still in its debounce window (so the latest payload runs,
 * once, `debounceMs` after the last request), is kept as the next run when the check is already
 * running, and is absorbed by a check that has left its window and waits for a worker.
 */
export class BullmqJobQueue implements JobQueue {
  readonly queue: Queue;
  private readonly retry: RetryPolicy;
  private readonly logger: Logger;
  private readonly defaultDebounceMs: number;
  private readonly defaultMaxWaitMs: number;
  private readonly keepCompleted: { age: number; count: number };
  private readonly keepFailed: { age: number; count: number };

  /**
   * Create the producer; its Redis connection opens in the background.
   *
   * @param options - Queue location, retry policy, debounce and retention.
   * @throws RangeError for a queue name containing `:` or an invalid retry policy.
   */
  constructor(options: BullmqJobQueueOptions) {
    const { queueName, prefix } = resolveLocation(options);
    this.retry = resolveRetryPolicy(options.retry);
    this.logger = options.logger ?? noopLogger;
    this.defaultDebounceMs = options.defaultDebounceMs ?? defaultDebounceMs;
    this.defaultMaxWaitMs = maxWaitOf(undefined, options.defaultMaxWaitMs ?? defaultMaxWaitMs);
    const keepCompleted = options.keepCompleted ?? { ageSeconds: 3_600, count: 1_000 };
    const keepFailed = options.keepFailed ?? { ageSeconds: 7 * 24 * 3_600, count: 10_000 };
    this.keepCompleted = { age: keepCompleted.ageSeconds, count: keepCompleted.count };
    this.keepFailed = { age: keepFailed.ageSeconds, count: keepFailed.count };
    this.queue = new Queue(queueName, { connection: options.connection, prefix });
    this.queue.on('error', (error) =>
      this.logger.error({ queue: queueName, error: summarizeFailure(error) }, 'compaction queue error'),
    );
  }

  async enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void> {
    const payload = parseCompactionCheckJob(job);
    const requestedDelay = debounceDelay(payload, options, this.defaultDebounceMs);
    const maxWaitMs = maxWaitOf(options, this.defaultMaxWaitMs);
    const now = Date.now();
    const windowStartedAt = (await this.openWindowStart(payload, requestedDelay)) ?? now;
    const delay = delayWithinWindow(requestedDelay, windowStartedAt, maxWaitMs, now);
    const added = await this.queue.add(
      compactionCheckJobName,
      payload,
      this.jobOptions(payload, delay, windowStartedAt),
    );
    this.logger.debug(
      {
        jobId: added.id,
        tenantId: payload.tenantId,
        threadId: payload.threadId,
        reason: payload.reason,
        delay,
      },
      'compaction check enqueued',
    );
  }

  /**
   * When the thread's check is still in its debounce window, the time that window opened (this
   * request will replace the check, and must not push it past the maximum wait). Two reads; a race
   * with the check's promotion only makes this request's delay shorter, never the wait longer.
   */
  private async openWindowStart(
    payload: CompactionCheckJob,
    requestedDelay: number,
  ): Promise<number | undefined> {
    const key = deduplicationKey(payload);
    if (key === undefined || requestedDelay === 0) return undefined;
    const holderId = await this.queue.getDeduplicationJobId(key);
    if (!holderId) return undefined;
    const windowStartedAt = windowStartOfJobId(holderId);
    if (windowStartedAt === undefined) return undefined;
    return (await this.queue.getJobState(holderId)) === 'delayed' ? windowStartedAt : undefined;
  }

  private jobOptions(payload: CompactionCheckJob, delay: number, windowStartedAt: number): JobsOptions {
    const key = deduplicationKey(payload);
    return {
      jobId: newJobId(payload, windowStartedAt),
      delay,
      attempts: this.retry.attempts,
      backoff: { type: 'exponential', delay: this.retry.backoffDelayMs, jitter: this.retry.jitter },
      removeOnComplete: this.keepCompleted,
      removeOnFail: this.keepFailed,
      // replace: a check still in its debounce window is replaced (latest payload, timer restarts,
      // within the window's maximum wait computed above).
      // keepLastIfActive: a request while the check runs becomes the next run instead of being lost,
      // and two checks of one thread never run at once.
      ...(key === undefined ? {} : { deduplication: { id: key, replace: true, keepLastIfActive: true } }),
    };
  }

  /**
   * Whether the producer's connection is up (not waiting for a Redis it cannot reach), asking it
   * for at most `waitMs` while it is still being created.
   */
  private async redisAnswers(waitMs: number): Promise<boolean> {
    const client = this.queue.backend.client;
    client.catch(() => {});
    if (!(await settleWithin(client, waitMs))) return false;
    const status = await client.then(
      (connected) => connected.status,
      () => 'end',
    );
    return status !== 'connecting' && status !== 'reconnecting' && status !== 'wait';
  }

  /**
   * Closes the connection; drops it instead when Redis does not answer, so a shutdown never hangs.
   * A connection already waiting for an unreachable Redis is dropped at once: a polite close could
   * only time out, and a shutdown's time is budgeted (ADR-0100).
   */
  async close(): Promise<void> {
    if (await this.redisAnswers(UNREACHABLE_CHECK_MS)) {
      const closed = this.queue.close();
      closed.catch(() => {});
      if (await settleWithin(closed, connectionCloseAllowanceMs)) return closed;
      if (await this.redisAnswers(connectionCloseAllowanceMs)) return closed;
    }
    this.logger.warn({}, 'Redis did not answer while closing; dropping the producer connection');
    await settleWithin(this.queue.disconnect(), connectionDropAllowanceMs);
  }
}

/** How long a close waits to learn the state of a connection still being created. */
const UNREACHABLE_CHECK_MS = 50;

/**
 * Create a BullMQ producer.
 *
 * @param options - Queue location, retry policy, debounce and retention.
 * @returns The queue.
 * @throws RangeError for a queue name containing `:` or an invalid retry policy.
 */
export function createBullmqJobQueue(options: BullmqJobQueueOptions): BullmqJobQueue {
  return new BullmqJobQueue(options);
}
