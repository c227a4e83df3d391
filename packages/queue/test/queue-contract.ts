import { type CompactionCheckJob, CompactorError, type JobQueue, ValidationError } from '@compactor/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CompactionWorker,
  type CompactionWorkerOptions,
  closingReserveMs,
  type RetryPolicy,
} from '../src/index.js';
import { HandlerRecorder } from './support/handler-recorder.js';
import { gate, sleep, waitUntil } from './support/wait.js';

/** What each implementation provides to the contract suite; one fresh, isolated queue per test. */
export interface CompactionQueueUnderTest {
  producer: JobQueue;
  startWorker(options: CompactionWorkerOptions): Promise<CompactionWorker>;
  /** Put a payload on the queue without the producer's validation, as a foreign producer could. */
  enqueueUnvalidated(data: unknown): Promise<void>;
  cleanup(): Promise<void>;
}

export interface QueueSettings {
  retry: RetryPolicy;
}

/** Small backoffs, so retry tests take milliseconds; jitter on, so it is exercised. */
const testRetry: RetryPolicy = { attempts: 3, backoffDelayMs: 40, jitter: 0.5 };

let threadCounter = 0;
function check(overrides: Partial<CompactionCheckJob> = {}): CompactionCheckJob {
  threadCounter += 1;
  return {
    tenantId: 'tenant-a',
    threadId: `thread-${threadCounter}`,
    version: 1,
    reason: 'append',
    ...overrides,
  };
}

/**
 * The queue contract, run against the BullMQ queue and the in-process queue alike: delivery,
 * per-thread debounce with the latest payload, concurrency, retries, permanent failures, invalid
 * payloads, graceful shutdown, and manual requests that are never swallowed.
 */
export function testCompactionQueue(
  name: string,
  makeQueue: (settings: QueueSettings) => Promise<CompactionQueueUnderTest>,
): void {
  describe(`${name}: compaction queue contract`, () => {
    const opened: Array<{ queue: CompactionQueueUnderTest; workers: CompactionWorker[] }> = [];

    async function setUp(workerOptions: Partial<CompactionWorkerOptions> = {}) {
      const queue = await makeQueue({ retry: testRetry });
      const recorder = new HandlerRecorder();
      const workers: CompactionWorker[] = [];
      opened.push({ queue, workers });
      const startWorker = async (options: Partial<CompactionWorkerOptions> = {}) => {
        const worker = await queue.startWorker({
          handler: recorder.handler,
          onJobFinished: recorder.onJobFinished,
          concurrency: 4,
          shutdownTimeoutMs: 5_000,
          ...workerOptions,
          ...options,
        });
        workers.push(worker);
        return worker;
      };
      return { queue, producer: queue.producer, recorder, startWorker };
    }

    afterEach(async () => {
      for (const { queue, workers } of opened.splice(0)) {
        await Promise.all(workers.map((worker) => worker.close()));
        await queue.cleanup();
      }
    });

    it('delivers the typed payload to the handler and reports the result', async () => {
      const { producer, recorder, startWorker } = await setUp();
      recorder.behave(async () => ({
        status: 'compacted',
        planVersion: 3,
        tokensFreed: 1200,
        summarizerCostUsd: 0.01,
      }));
      await startWorker();
      const job = check({ version: 7, reason: 'sweeper' });
      await producer.enqueueCompactionCheck(job, { debounceMs: 0 });

      await waitUntil(() => recorder.events.length === 1, 'the job to finish');
      expect(recorder.calls).toHaveLength(1);
      expect(recorder.calls[0]!.job).toEqual(job);
      expect(recorder.calls[0]!.context.attempt).toBe(1);
      expect(recorder.calls[0]!.context.maxAttempts).toBe(testRetry.attempts);
      expect(recorder.calls[0]!.context.signal.aborted).toBe(false);
      const event = recorder.events[0]!;
      expect(event.outcome).toBe('completed');
      expect(event.job).toEqual(job);
      expect(event.attempt).toBe(1);
      expect(event.result).toEqual({
        status: 'compacted',
        planVersion: 3,
        tokensFreed: 1200,
        summarizerCostUsd: 0.01,
      });
      expect(event.durationMs).toBeGreaterThanOrEqual(0);
      expect(event.jobId).toBe(recorder.calls[0]!.context.jobId);
    });

    it('collapses a burst of 20 checks for one thread into one run of the latest payload, after the burst', async () => {
      const { producer, recorder, startWorker } = await setUp();
      await startWorker();
      const first = check();
      const debounceMs = 250;
      let lastEnqueuedAt = 0;
      for (let version = 1; version <= 20; version += 1) {
        await producer.enqueueCompactionCheck({ ...first, version }, { debounceMs });
        lastEnqueuedAt = Date.now();
      }

      await waitUntil(() => recorder.calls.length >= 1, 'the debounced check');
      await sleep(debounceMs * 2);
      expect(recorder.calls).toHaveLength(1);
      expect(recorder.calls[0]!.job.version).toBe(20);
      // Trailing debounce: the timer restarted with every request.
      expect(recorder.calls[0]!.startedAt - lastEnqueuedAt).toBeGreaterThanOrEqual(debounceMs - 30);
    });

    it('checks a thread that never goes quiet at least once per maximum wait, with the latest payload', async () => {
      const { producer, recorder, startWorker } = await setUp();
      await startWorker();
      const first = check();
      // A request every 100 ms with a 300 ms debounce: without a maximum wait the timer restarts
      // forever and the thread is never checked while events keep coming.
      const debounceMs = 300;
      const maxWaitMs = 700;
      const startedAt = Date.now();
      let version = 0;
      while (Date.now() - startedAt < 2_300) {
        version += 1;
        await producer.enqueueCompactionCheck({ ...first, version }, { debounceMs, maxWaitMs });
        await sleep(100);
      }
      const requestsStoppedAt = Date.now();

      const duringBurst = recorder.calls.filter((call) => call.startedAt < requestsStoppedAt);
      // 2.3 s of requests with a 0.7 s maximum wait: checks at about 0.7, 1.4 and 2.1 s.
      expect(duringBurst.length).toBeGreaterThanOrEqual(2);
      expect(duringBurst[0]!.startedAt - startedAt).toBeLessThan(maxWaitMs + 400);
      for (const [index, call] of duringBurst.entries()) {
        expect(call.job.version).toBeGreaterThan(index === 0 ? 1 : duringBurst[index - 1]!.job.version);
      }
      // The last requests still get their trailing check, of the newest version.
      await waitUntil(() => recorder.calls.at(-1)?.job.version === version, 'the trailing check');
    });

    it('runs different threads independently, at most `concurrency` at once', async () => {
      const { producer, recorder, startWorker } = await setUp({ concurrency: 3 });
      const release = gate();
      recorder.behave(async () => {
        await release.promise;
        return { status: 'unchanged' };
      });
      await startWorker();
      const jobs = Array.from({ length: 5 }, () => check());
      for (const job of jobs) await producer.enqueueCompactionCheck(job, { debounceMs: 0 });

      await waitUntil(() => recorder.active === 3, 'three checks running at once');
      await sleep(200);
      expect(recorder.active).toBe(3);
      expect(recorder.calls).toHaveLength(3);
      release.open();
      await waitUntil(() => recorder.events.length === 5, 'all five checks');
      expect(recorder.maxActive).toBe(3);
      expect(new Set(recorder.calls.map((call) => call.job.threadId))).toEqual(
        new Set(jobs.map((job) => job.threadId)),
      );
    });

    it('retries a retryable failure and counts the attempts', async () => {
      const { producer, recorder, startWorker } = await setUp();
      recorder.behave(async ({ context }) => {
        if (context.attempt === 1) throw new Error('summarizer timed out');
        return { status: 'compacted' };
      });
      await startWorker();
      await producer.enqueueCompactionCheck(check(), { debounceMs: 0 });

      await waitUntil(
        () => recorder.events.some((event) => event.outcome === 'completed'),
        'the retried check',
      );
      expect(recorder.calls.map((call) => call.context.attempt)).toEqual([1, 2]);
      expect(recorder.events.map((event) => [event.outcome, event.attempt])).toEqual([
        ['retrying', 1],
        ['completed', 2],
      ]);
      expect(recorder.events[0]!.error).toMatchObject({ message: 'summarizer timed out', permanent: false });
    });

    it('fails a check for good once its attempts are used up', async () => {
      const { producer, recorder, startWorker } = await setUp();
      recorder.behave(async () => {
        throw new Error('still failing');
      });
      await startWorker();
      await producer.enqueueCompactionCheck(check(), { debounceMs: 0 });

      await waitUntil(() => recorder.events.some((event) => event.outcome === 'failed'), 'the final failure');
      await sleep(200);
      expect(recorder.calls.map((call) => call.context.attempt)).toEqual([1, 2, 3]);
      expect(recorder.events.map((event) => event.outcome)).toEqual(['retrying', 'retrying', 'failed']);
      expect(recorder.events[2]!.error?.permanent).toBe(false);
    });

    it('does not retry a permanent failure (a CompactorError that is not retryable)', async () => {
      const { producer, recorder, startWorker } = await setUp();
      recorder.behave(async ({ job }) => {
        if (job.version === 1) throw new CompactorError('integrity', 'plan references unknown messages');
        throw new ValidationError('policy is invalid', [{ path: 'policy', message: 'bad' }]);
      });
      await startWorker();
      await producer.enqueueCompactionCheck(check({ version: 1 }), { debounceMs: 0 });
      await producer.enqueueCompactionCheck(check({ version: 2 }), { debounceMs: 0 });

      await waitUntil(() => recorder.events.length === 2, 'both failures');
      await sleep(200);
      expect(recorder.calls).toHaveLength(2);
      expect(recorder.events.every((event) => event.outcome === 'failed' && event.attempt === 1)).toBe(true);
      expect(recorder.events.map((event) => event.error?.code).sort()).toEqual(['integrity', 'validation']);
      expect(recorder.events.every((event) => event.error?.permanent === true)).toBe(true);
    });

    it('still retries a CompactorError marked retryable', async () => {
      const { producer, recorder, startWorker } = await setUp();
      recorder.behave(async ({ context }) => {
        if (context.attempt === 1)
          throw new CompactorError('unavailable', 'store is down', { isRetryable: true });
        return { status: 'unchanged' };
      });
      await startWorker();
      await producer.enqueueCompactionCheck(check(), { debounceMs: 0 });

      await waitUntil(
        () => recorder.events.some((event) => event.outcome === 'completed'),
        'the retried check',
      );
      expect(recorder.calls.map((call) => call.context.attempt)).toEqual([1, 2]);
    });

    it('rejects an invalid payload at the producer, and fails one found on the queue without retrying', async () => {
      const { queue, producer, recorder, startWorker } = await setUp();
      await expect(
        producer.enqueueCompactionCheck({ ...check(), threadId: '' }, { debounceMs: 0 }),
      ).rejects.toSatisfy((error) => CompactorError.hasCode(error, 'validation'));
      await expect(
        producer.enqueueCompactionCheck({ ...check(), content: 'conversation text' } as CompactionCheckJob),
      ).rejects.toSatisfy((error) => CompactorError.hasCode(error, 'validation'));

      await startWorker();
      await queue.enqueueUnvalidated({
        tenantId: 'tenant-a',
        threadId: 'thread-x',
        version: -1,
        reason: 'append',
      });
      await waitUntil(() => recorder.events.length === 1, 'the invalid job to fail');
      const valid = check();
      await producer.enqueueCompactionCheck(valid, { debounceMs: 0 });
      await waitUntil(() => recorder.events.length === 2, 'the valid job after it');
      await sleep(150);

      expect(recorder.calls.map((call) => call.job)).toEqual([valid]);
      const failure = recorder.events[0]!;
      expect(failure.outcome).toBe('failed');
      expect(failure.job).toBeUndefined();
      expect(failure.attempt).toBe(1);
      expect(failure.error).toMatchObject({ code: 'validation', permanent: true });
    });

    it('close waits for a running check to finish', async () => {
      const { producer, recorder, startWorker } = await setUp();
      const release = gate();
      recorder.behave(async () => {
        await release.promise;
        return { status: 'compacted' };
      });
      const worker = await startWorker();
      await producer.enqueueCompactionCheck(check(), { debounceMs: 0 });
      await waitUntil(() => recorder.active === 1, 'the check to start');

      let closed = false;
      const closing = worker.close().then(() => {
        closed = true;
      });
      await sleep(200);
      expect(closed).toBe(false);
      expect(recorder.calls[0]!.context.signal.aborted).toBe(false);
      release.open();
      await closing;
      expect(recorder.events.map((event) => event.outcome)).toEqual(['completed']);
    });

    it('after the grace period, close aborts a running check, which runs again on the next worker', async () => {
      const { producer, recorder, startWorker } = await setUp();
      recorder.behave(async ({ context }) => {
        if (recorder.calls.length > 1) return { status: 'compacted' };
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('aborted');
      });
      const worker = await startWorker({ shutdownTimeoutMs: 150 });
      const job = check();
      await producer.enqueueCompactionCheck(job, { debounceMs: 0 });
      await waitUntil(() => recorder.active === 1, 'the check to start');

      const startedClosing = Date.now();
      await worker.close();
      // The check had the grace period, less what requeueing and closing are kept (ADR-0100; the
      // in-process queue keeps nothing, BullMQ a third of so short a period).
      expect(Date.now() - startedClosing).toBeGreaterThanOrEqual(150 - closingReserveMs(150) - 10);
      expect(recorder.calls[0]!.context.signal.aborted).toBe(true);
      expect(recorder.events.map((event) => event.outcome)).toEqual(['interrupted']);

      await startWorker();
      await waitUntil(() => recorder.events.length === 2, 'the check to run again');
      expect(recorder.calls[1]!.job).toEqual(job);
      // An interrupted attempt is not counted against the retry budget.
      expect(recorder.calls[1]!.context.attempt).toBe(1);
      expect(recorder.events[1]!.outcome).toBe('completed');
    });

    it('does not lose a manual request behind a pending automatic check', async () => {
      const { producer, recorder, startWorker } = await setUp();
      await startWorker();
      const automatic = check();
      const manual: CompactionCheckJob = {
        ...automatic,
        version: 2,
        reason: 'manual',
        manual: { instructions: 'keep every file path', force: true },
      };
      await producer.enqueueCompactionCheck(automatic, { debounceMs: 200 });
      await producer.enqueueCompactionCheck(manual, { debounceMs: 0 });
      await producer.enqueueCompactionCheck({ ...automatic, version: 3 }, { debounceMs: 200 });

      await waitUntil(() => recorder.events.length === 2, 'the manual and the automatic check');
      await sleep(400);
      const reasons = recorder.calls.map((call) => [call.job.reason, call.job.version]);
      expect(reasons).toEqual([
        ['manual', 2],
        ['append', 3],
      ]);
      expect(recorder.calls[0]!.job.manual).toEqual({ instructions: 'keep every file path', force: true });
    });

    it('runs every manual request, even several for one thread', async () => {
      const { producer, recorder, startWorker } = await setUp();
      await startWorker();
      const base = check();
      for (const instructions of ['first', 'second']) {
        await producer.enqueueCompactionCheck(
          { ...base, reason: 'manual', manual: { instructions } },
          { debounceMs: 0 },
        );
      }
      await waitUntil(() => recorder.events.length === 2, 'both manual requests');
      expect(recorder.calls.map((call) => call.job.manual?.instructions).sort()).toEqual(['first', 'second']);
    });

    it('keeps a request that arrives while its thread is checked as the next run, without running both at once', async () => {
      const { producer, recorder, startWorker } = await setUp();
      const release = gate();
      recorder.behave(async ({ job }) => {
        if (job.version === 1) await release.promise;
        return { status: 'unchanged' };
      });
      await startWorker();
      const job = check();
      await producer.enqueueCompactionCheck(job, { debounceMs: 0 });
      await waitUntil(() => recorder.active === 1, 'the first check to start');
      for (const version of [2, 3, 4]) {
        await producer.enqueueCompactionCheck({ ...job, version }, { debounceMs: 50 });
      }
      await sleep(250);
      expect(recorder.calls).toHaveLength(1);

      release.open();
      await waitUntil(() => recorder.events.length === 2, 'the follow-up check');
      await sleep(250);
      expect(recorder.calls.map((call) => call.job.version)).toEqual([1, 4]);
      expect(recorder.maxActive).toBe(1);
    });

    it('keeps processing when the onJobFinished hook throws', async () => {
      const { producer, recorder, startWorker } = await setUp();
      await startWorker({
        onJobFinished: () => {
          throw new Error('metrics backend down');
        },
      });
      await producer.enqueueCompactionCheck(check(), { debounceMs: 0 });
      await producer.enqueueCompactionCheck(check(), { debounceMs: 0 });
      await waitUntil(() => recorder.calls.length === 2 && recorder.active === 0, 'both checks');
    });
  });
}
