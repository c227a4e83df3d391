import { randomUUID } from 'node:crypto';
import { noopLogger } from '@compactor/core';
import { createBullmqJobQueue } from '@compactor/queue';
import {
  type RedisForTests,
  redisAvailableForTests,
  redisInstallHint,
  requireRedisForTests,
} from '@compactor/testkit/redis-server';
import { asInputs, codingSession, longConversation } from '@compactor/testkit/sessions';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../src/index.js';
import { everySpanRequested, gatedSummarizer } from './support/gated-summarizer.js';
import { metricValue } from './support/metric-values.js';
import { testRuntime } from './support/runtimes.js';

const available = redisAvailableForTests();
const suiteName = available ? 'the worker on BullMQ' : `the worker on BullMQ ${redisInstallHint}`;

describe.skipIf(!available)(suiteName, () => {
  let redis: RedisForTests;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    redis = await requireRedisForTests();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function bullmqEnvironment(prefix: string): Record<string, string> {
    return { COMPACTOR_QUEUE: 'bullmq', REDIS_URL: redis.url, COMPACTOR_QUEUE_PREFIX: prefix };
  }

  it('handles a check enqueued by a separate producer', async () => {
    const prefix = `{worker-${randomUUID()}}`;
    const runtime = await testRuntime(cleanups, bullmqEnvironment(prefix));
    const metrics = new Registry();
    const worker = await startWorker({ runtime, metrics, logger: noopLogger, sweepIntervalMs: 0 });
    cleanups.push(() => worker.close());
    const { events } = codingSession('thread-1');
    const appended = await runtime.stores.events.append('tenant-a', 'thread-1', asInputs(events));
    // The producer an ingest process would hold: same Redis, same prefix, nothing else shared.
    const producer = createBullmqJobQueue({ connection: { url: redis.url }, prefix });
    cleanups.push(() => producer.close());
    const inspector = new Queue('compaction-check', { connection: { url: redis.url }, prefix });
    cleanups.push(async () => {
      await inspector.obliterate({ force: true });
      await inspector.close();
    });

    await producer.enqueueCompactionCheck(
      { tenantId: 'tenant-a', threadId: 'thread-1', version: appended.version, reason: 'append' },
      { debounceMs: 0 },
    );

    await expect.poll(() => inspector.getCompletedCount(), { timeout: 10_000 }).toBe(1);
    const [completed] = await inspector.getJobs(['completed']);
    expect(completed?.returnvalue).toMatchObject({ status: 'compacted', planVersion: 1 });
    expect(
      (await runtime.stores.plans.listVersions('tenant-a', 'thread-1')).map((entry) => entry.version),
    ).toEqual([1]);
    await expect
      .poll(() => metricValue(metrics, 'compactor_worker_compactions_committed_total'), { timeout: 2_000 })
      .toBe(1);
  });

  it('commits exactly one plan when two checks of a thread race: the other reports a conflict', async () => {
    const prefix = `{worker-${randomUUID()}}`;
    const summarizer = gatedSummarizer();
    const runtime = await testRuntime(cleanups, bullmqEnvironment(prefix), { summarizer });
    const metrics = new Registry();
    const worker = await startWorker({
      runtime,
      metrics,
      logger: noopLogger,
      concurrency: 2,
      sweepIntervalMs: 0,
    });
    cleanups.push(() => worker.close());
    const { events } = longConversation('raced');
    const appended = await runtime.stores.events.append('tenant-a', 'raced', asInputs(events));

    // Manual requests are never deduplicated, so both run at once on the two slots.
    for (let request = 0; request < 2; request += 1) {
      await runtime.queue.enqueueCompactionCheck({
        tenantId: 'tenant-a',
        threadId: 'raced',
        version: appended.version,
        reason: 'manual',
        manual: { force: true },
      });
    }
    // Both checks are inside the planner, from plan version 0, before either may finish.
    await expect.poll(() => everySpanRequested(summarizer.calls, 2), { timeout: 10_000 }).toBe(true);
    summarizer.open();

    await expect
      .poll(() => metricValue(metrics, 'compactor_worker_jobs_total', { outcome: 'completed' }), {
        timeout: 10_000,
      })
      .toBe(2);
    expect(await metricValue(metrics, 'compactor_worker_jobs_total', { status: 'compacted' })).toBe(1);
    expect(await metricValue(metrics, 'compactor_worker_jobs_total', { status: 'conflict' })).toBe(1);
    expect(await metricValue(metrics, 'compactor_worker_lost_races_total')).toBe(1);
    expect(await metricValue(metrics, 'compactor_worker_compactions_committed_total')).toBe(1);
    // Both checks paid for their summaries, the loser included.
    expect(await metricValue(metrics, 'compactor_worker_summarizer_cost_usd_total')).toBeCloseTo(
      summarizer.calls.length * 0.002,
      10,
    );
    const versions = await runtime.stores.plans.listVersions('tenant-a', 'raced');
    expect(versions.map((version) => version.version)).toEqual([1]);
  });
});
