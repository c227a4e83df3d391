import {
  type CompactionCheckJob,
  CompactorError,
  type EnqueueOptions,
  type JobQueue,
  type Logger,
} from '@compactor/core';

/**
 * A producer whose enqueue fails within `timeoutMs` instead of waiting for the queue's server:
 * BullMQ waits for Redis to come back, and an append must not wait with it. The error is a
 * retryable `unavailable` CompactorError; the caller marks the thread pending for the sweeper.
 * If the slow enqueue lands after all, the thread gets one more (deduplicated) check.
 */
export class TimedJobQueue implements JobQueue {
  /**
   * @param inner - The queue to enqueue on.
   * @param timeoutMs - How long an enqueue may take.
   * @param logger - Receives late enqueues that landed after all.
   */
  constructor(
    private readonly inner: JobQueue,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void> {
    const enqueued = this.inner.enqueueCompactionCheck(job, options);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        // The late outcome is only logged: the caller has been told it failed.
        enqueued.then(
          () => this.logger.info({ tenantId: job.tenantId, threadId: job.threadId }, 'late enqueue landed'),
          () => {},
        );
        reject(
          new CompactorError(
            'unavailable',
            `the compaction queue did not accept the check within ${this.timeoutMs} ms`,
            { isRetryable: true, details: { tenantId: job.tenantId, threadId: job.threadId } },
          ),
        );
      }, this.timeoutMs);
      enqueued.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
