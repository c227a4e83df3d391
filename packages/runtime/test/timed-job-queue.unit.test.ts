import {
  type CompactionCheckJob,
  CompactorError,
  type JobQueue,
  type Logger,
  noopLogger,
} from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { TimedJobQueue } from '../src/index.js';

const job: CompactionCheckJob = { tenantId: 'tenant-a', threadId: 'thread-1', version: 2, reason: 'append' };

/** A producer whose enqueue settles when the test says so. */
function controllableQueue() {
  const calls: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  const queue: JobQueue = {
    enqueueCompactionCheck: () =>
      new Promise<void>((resolve, reject) => {
        calls.push({ resolve, reject });
      }),
    close: async () => {},
  };
  return { queue, calls };
}

describe('TimedJobQueue', () => {
  it('passes a prompt enqueue through', async () => {
    const { queue, calls } = controllableQueue();
    const timed = new TimedJobQueue(queue, 1_000, noopLogger);
    const enqueued = timed.enqueueCompactionCheck(job);
    calls[0]!.resolve();
    await expect(enqueued).resolves.toBeUndefined();
  });

  it('passes the producer’s own error through', async () => {
    const { queue, calls } = controllableQueue();
    const timed = new TimedJobQueue(queue, 1_000, noopLogger);
    const enqueued = timed.enqueueCompactionCheck(job);
    calls[0]!.reject(new Error('READONLY You can not write against a read only replica.'));
    await expect(enqueued).rejects.toThrow('READONLY');
  });

  it('fails a slow enqueue with a retryable unavailable error, and only logs the late outcome', async () => {
    const { queue, calls } = controllableQueue();
    const logged: string[] = [];
    const logger: Logger = { ...noopLogger, info: (_details, message) => logged.push(message ?? '') };
    const timed = new TimedJobQueue(queue, 20, logger);
    const error = await timed.enqueueCompactionCheck(job).catch((caught: unknown) => caught);
    expect(CompactorError.hasCode(error, 'unavailable')).toBe(true);
    expect((error as CompactorError).isRetryable).toBe(true);
    expect((error as Error).message).toContain('within 20 ms');
    calls[0]!.resolve();
    await expect.poll(() => logged).toEqual(['late enqueue landed']);
  });
});
