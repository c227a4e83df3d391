import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type CompactionCheckJob, ValidationError } from '@compactor/core';
import {
  type RedisForTests,
  redisAvailableForTests,
  redisInstallHint,
  requireRedisForTests,
} from '@compactor/testkit/redis-server';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type BullmqCompactionWorkerOptions,
  compactionCheckJobName,
  createBullmqJobQueue,
  type RetryPolicy,
  startBullmqCompactionWorker,
} from '../src/index.js';
import { testCompactionQueue } from './queue-contract.js';
import { HandlerRecorder } from './support/handler-recorder.js';
import { sleep, waitUntil } from './support/wait.js';

const available = redisAvailableForTests();
const suiteName = available ? 'BullMQ on Redis' : `BullMQ on Redis ${redisInstallHint}`;

describe.skipIf(!available)(suiteName, () => {
  let redis: RedisForTests;
  const closeAfterEach: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    redis = await requireRedisForTests();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    for (const close of closeAfterEach.splice(0).reverse()) await close();
  });

  /** A fresh queue location per test: a unique, hash-tagged prefix, as on Redis Cluster. */
  function location() {
    return {
      connection: { url: redis.url },
      prefix: `{test-${randomUUID()}}`,
      queueName: 'compaction-check',
    };
  }

  function inspector(where: ReturnType<typeof location>): Queue {
    const queue = new Queue(where.queueName, { connection: where.connection, prefix: where.prefix });
    closeAfterEach.push(async () => {
      await queue.obliterate({ force: true });
      await queue.close();
    });
    return queue;
  }

  testCompactionQueue('bullmq', async ({ retry }) => {
    const where = location();
    const producer = createBullmqJobQueue({ ...where, retry });
    const raw = new Queue(where.queueName, { connection: where.connection, prefix: where.prefix });
    return {
      producer,
      startWorker: (options) => startBullmqCompactionWorker({ ...where, ...options }),
      enqueueUnvalidated: async (data) => {
        await raw.add(compactionCheckJobName, data, { attempts: retry.attempts });
      },
      cleanup: async () => {
        await producer.close();
        await raw.obliterate({ force: true });
        await raw.close();
      },
    };
  });

  describe('BullMQ specifics', () => {
    const retry: RetryPolicy = { attempts: 3, backoffDelayMs: 40, jitter: 0.5 };

    async function startWorker(options: BullmqCompactionWorkerOptions) {
      const worker = await startBullmqCompactionWorker(options);
      closeAfterEach.push(() => worker.close());
      return worker;
    }

    /** Start a worker in a child process, give it `job`, and SIGKILL it while the handler runs. */
    async function crashMidJob(where: ReturnType<typeof location>, job: CompactionCheckJob): Promise<void> {
      const producer = createBullmqJobQueue({ ...where, retry });
      closeAfterEach.push(() => producer.close());
      const fixture = fileURLToPath(new URL('./fixtures/crashing-worker.ts', import.meta.url));
      const child = fork(fixture, [redis.url, where.prefix, where.queueName], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      closeAfterEach.push(async () => child.kill('SIGKILL'));
      const messages: Array<{ ready?: boolean; started?: CompactionCheckJob }> = [];
      child.on('message', (message) => messages.push(message as (typeof messages)[number]));
      await waitUntil(() => messages.some((message) => message.ready), 'the child worker to start', 15_000);
      await producer.enqueueCompactionCheck(job, { debounceMs: 0 });
      await waitUntil(() => messages.some((message) => message.started), 'the child to take the job');
      expect(messages.find((message) => message.started)?.started).toEqual(job);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }

    it('recovers a check whose worker died mid-job: another worker completes it, exactly once', async () => {
      const where = location();
      const queue = inspector(where);
      const job: CompactionCheckJob = {
        tenantId: 'tenant-a',
        threadId: 'thread-crash',
        version: 4,
        reason: 'append',
      };
      await crashMidJob(where, job);
      expect(await queue.getActiveCount()).toBe(1);

      const recorder = new HandlerRecorder();
      recorder.behave(async () => ({ status: 'compacted', planVersion: 2 }));
      await startWorker({
        ...where,
        handler: recorder.handler,
        onJobFinished: recorder.onJobFinished,
        lockDurationMs: 1_000,
        stalledIntervalMs: 500,
      });
      await waitUntil(() => recorder.events.length === 1, 'the recovered job to complete', 10_000);
      await sleep(1_200);

      expect(recorder.calls.map((call) => call.job)).toEqual([job]);
      expect(recorder.calls[0]!.context.attempt).toBe(1);
      expect(recorder.events.map((event) => event.outcome)).toEqual(['completed']);
      expect(await queue.getCompletedCount()).toBe(1);
      expect(await queue.getFailedCount()).toBe(0);
      expect(await queue.getActiveCount()).toBe(0);
      const [completed] = await queue.getJobs(['completed']);
      expect(completed?.stalledCounter).toBe(1);
      expect(completed?.returnvalue).toEqual({ status: 'compacted', planVersion: 2 });
    }, 30_000);

    it('fails a check that stalled more than maxStalledCount times, and reports it', async () => {
      const where = location();
      const queue = inspector(where);
      const job: CompactionCheckJob = {
        tenantId: 'tenant-a',
        threadId: 'thread-poison',
        version: 1,
        reason: 'append',
      };
      await crashMidJob(where, job);

      const recorder = new HandlerRecorder();
      await startWorker({
        ...where,
        handler: recorder.handler,
        onJobFinished: recorder.onJobFinished,
        lockDurationMs: 1_000,
        stalledIntervalMs: 500,
        maxStalledCount: 0,
      });
      await waitUntil(() => recorder.events.length === 1, 'the stalled job to be failed', 10_000);

      expect(recorder.calls).toEqual([]);
      expect(recorder.events[0]).toMatchObject({ job, outcome: 'failed', error: { permanent: true } });
      expect(await queue.getFailedCount()).toBe(1);
    }, 30_000);

    it('escapes ids: no ":" in job or deduplication ids, and distinct threads never share a key', async () => {
      const where = location();
      const producer = createBullmqJobQueue({ ...where, retry });
      closeAfterEach.push(() => producer.close());
      const queue = inspector(where);
      const jobs: CompactionCheckJob[] = [
        { tenantId: 'org:acme', threadId: 'chat:{42}', version: 1, reason: 'append' },
        {
          tenantId: 'org:acme',
          threadId: 'chat:{42}',
          version: 1,
          reason: 'manual',
          manual: { force: true },
        },
        { tenantId: 'a/b', threadId: 'c', version: 1, reason: 'append' },
        { tenantId: 'a', threadId: 'b/c', version: 1, reason: 'append' },
      ];
      for (const job of jobs) await producer.enqueueCompactionCheck(job, { debounceMs: 60_000 });

      const stored = await queue.getJobs(['delayed']);
      expect(stored).toHaveLength(4);
      for (const job of stored) {
        expect(job.id).not.toContain(':');
        expect(job.deduplicationId ?? '').not.toContain(':');
      }
      const automatic = stored.filter((job) => job.deduplicationId !== undefined);
      expect(automatic).toHaveLength(3);
      expect(new Set(automatic.map((job) => job.deduplicationId)).size).toBe(3);
      expect(stored.filter((job) => job.id?.startsWith('manual/'))).toHaveLength(1);
      expect(
        stored.find((job) => job.data.threadId === 'chat:{42}' && job.data.reason === 'append')?.id,
      ).toMatch(/^check\/org%3Aacme\/chat%3A%7B42%7D\/\d+\.[0-9a-f-]{36}$/);
    });

    it('keeps every Redis key under the configured prefix', async () => {
      const where = location();
      const producer = createBullmqJobQueue({ ...where, retry });
      closeAfterEach.push(() => producer.close());
      inspector(where);
      const recorder = new HandlerRecorder();
      await startWorker({ ...where, handler: recorder.handler, onJobFinished: recorder.onJobFinished });
      await producer.enqueueCompactionCheck(
        { tenantId: 't', threadId: 'prefixed', version: 1, reason: 'append' },
        { debounceMs: 0 },
      );
      await producer.enqueueCompactionCheck(
        { tenantId: 't', threadId: 'pending', version: 1, reason: 'append' },
        { debounceMs: 60_000 },
      );
      await waitUntil(() => recorder.events.length === 1, 'the job to complete');

      const client = new Redis(redis.url);
      try {
        const ours = await client.keys(`${where.prefix}:*`);
        expect(ours.length).toBeGreaterThan(0);
        expect(ours.some((key) => key.includes(':de:check/t/pending'))).toBe(true);
        const elsewhere = (await client.keys(`*${where.prefix.slice(1, -1)}*`)).filter(
          (key) => !key.startsWith(`${where.prefix}:`),
        );
        expect(elsewhere).toEqual([]);
      } finally {
        client.disconnect();
      }
    });

    it('records the outcome in Redis: a permanent failure fails at once, a retried check completes', async () => {
      const where = location();
      const producer = createBullmqJobQueue({ ...where, retry });
      closeAfterEach.push(() => producer.close());
      const queue = inspector(where);
      const recorder = new HandlerRecorder();
      recorder.behave(async ({ job, context }) => {
        if (job.threadId === 'permanent') throw new ValidationError('bad policy');
        if (context.attempt === 1) throw new Error('flaky');
        return { status: 'unchanged' };
      });
      await startWorker({ ...where, handler: recorder.handler, onJobFinished: recorder.onJobFinished });
      await producer.enqueueCompactionCheck(
        { tenantId: 't', threadId: 'permanent', version: 1, reason: 'append' },
        { debounceMs: 0 },
      );
      await producer.enqueueCompactionCheck(
        { tenantId: 't', threadId: 'flaky', version: 1, reason: 'append' },
        { debounceMs: 0 },
      );
      await waitUntil(
        () =>
          recorder.events.filter((event) => event.outcome === 'failed' || event.outcome === 'completed')
            .length === 2,
        'both jobs to finish',
      );

      const [failed] = await queue.getJobs(['failed']);
      expect(failed?.data.threadId).toBe('permanent');
      expect(failed?.attemptsMade).toBe(1);
      expect(failed?.failedReason).toContain('bad policy');
      const [completed] = await queue.getJobs(['completed']);
      expect(completed?.data.threadId).toBe('flaky');
      expect(completed?.attemptsMade).toBe(2);
    });
  });
});
