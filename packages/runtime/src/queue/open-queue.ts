import { CompactorError, type JobQueue, type Logger } from '@compactor/core';
import {
  CircuitBreakingJobQueue,
  type CompactionJobFinishedEvent,
  type CompactionJobHandler,
  type CompactionWorker,
  createBullmqJobQueue,
  createInProcessCompactionQueue,
  startBullmqCompactionWorker,
} from '@compactor/queue';
import type { RuntimeConfig } from '../config/runtime-config.js';
import { TimedJobQueue } from './timed-job-queue.js';

/** What a consumer may set per call; the rest (connection, lock and stall timings) comes from the config. */
export interface ConsumerOptions {
  /** Default: `COMPACTOR_WORKER_CONCURRENCY`. */
  concurrency?: number;
  /** Default: `COMPACTOR_SHUTDOWN_TIMEOUT_MS`. */
  shutdownTimeoutMs?: number;
  onJobFinished?: (event: CompactionJobFinishedEvent) => void;
  logger?: Logger;
}

/** Start consuming compaction checks, BullMQ or in-process, with the same signature. */
export type StartConsumer = (
  handler: CompactionJobHandler,
  options?: ConsumerOptions,
) => Promise<CompactionWorker>;

export interface OpenedQueue {
  /** The producer side (`JobQueue` port). */
  queue: JobQueue;
  startConsumer: StartConsumer;
  /** Resolves when the queue's server answers; rejects otherwise. */
  probe(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Open the configured queue.
 *
 * @param config - The runtime configuration.
 * @param logger - The logger.
 * @param markPending - Marks a thread's check pending (the in-process queue calls it, on close, for
 *   every check it still held, so the sweeper runs them after a restart).
 */
export function openQueue(
  config: RuntimeConfig,
  logger: Logger,
  markPending?: (tenantId: string, threadId: string) => Promise<void>,
): OpenedQueue {
  const worker = config.worker;
  const consumerSettings = (options: ConsumerOptions) => ({
    concurrency: options.concurrency ?? worker.concurrency,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? worker.shutdownTimeoutMs,
    logger: options.logger ?? logger,
    ...(options.onJobFinished ? { onJobFinished: options.onJobFinished } : {}),
  });

  if (config.queue.kind === 'in-process') {
    const inProcess = createInProcessCompactionQueue({
      defaultDebounceMs: config.debounceMs,
      defaultMaxWaitMs: config.debounceMaxWaitMs,
      logger,
      ...(markPending
        ? {
            onUnrunChecks: async (jobs) => {
              for (const job of jobs) await markPending(job.tenantId, job.threadId);
            },
          }
        : {}),
    });
    let closed = false;
    return {
      queue: inProcess,
      startConsumer: (handler, options = {}) =>
        inProcess.startCompactionWorker({ handler, ...consumerSettings(options) }),
      probe: async () => {
        if (closed) throw new CompactorError('unavailable', 'the in-process queue is closed');
      },
      close: async () => {
        closed = true;
        await inProcess.close();
      },
    };
  }

  const location = { prefix: config.queue.prefix, logger };
  const redisUrl = config.queue.redisUrl;
  // The producer gives up on a command after one reconnection attempt instead of twenty: an
  // append then learns of an outage quickly (the enqueue also has its own timeout).
  const producer = createBullmqJobQueue({
    ...location,
    connection: { url: redisUrl, maxRetriesPerRequest: 1 },
    defaultDebounceMs: config.debounceMs,
    defaultMaxWaitMs: config.debounceMaxWaitMs,
  });
  // A cheap read that needs Redis to answer.
  const probe = async () => {
    await producer.queue.getWaitingCount();
  };
  // After one failed enqueue, appends stop waiting the enqueue timeout: they mark the thread pending
  // at once until a background probe finds Redis again (ADR-0055).
  const breaker = new CircuitBreakingJobQueue(new TimedJobQueue(producer, config.enqueueTimeoutMs, logger), {
    probe,
    backoff: { ...config.queueProbe, probeTimeoutMs: config.enqueueTimeoutMs },
    logger,
  });
  return {
    queue: breaker,
    startConsumer: (handler, options = {}) =>
      // Connection options (not an instance), so BullMQ sets `maxRetriesPerRequest: null` itself.
      startBullmqCompactionWorker({
        ...location,
        connection: { url: redisUrl },
        handler,
        ...consumerSettings(options),
        lockDurationMs: worker.lockDurationMs,
        stalledIntervalMs: worker.stalledIntervalMs,
      }),
    probe,
    close: () => breaker.close(),
  };
}
