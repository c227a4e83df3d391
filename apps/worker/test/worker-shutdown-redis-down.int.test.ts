import { randomUUID } from 'node:crypto';
import { createEmbeddedStores } from '@compactor/embedded';
import { createBullmqJobQueue } from '@compactor/queue';
import { SUMMARY_TOOL_NAME } from '@compactor/summarizer';
import { startFakeMessagesApi, toolUseResponse } from '@compactor/testkit/fake-messages-api';
import {
  type RestartableRedisForTests,
  redisInstallHint,
  restartableRedisAvailableForTests,
  startRestartableRedisForTests,
} from '@compactor/testkit/redis-server';
import { asInputs, longConversation } from '@compactor/testkit/sessions';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './support/temporary-directory.js';
import { spawnWorker, type WorkerChild } from './support/worker-process.js';

const available = restartableRedisAvailableForTests();
const suiteName = available
  ? 'the worker process (tsx src/main.ts): SIGTERM while Redis is down'
  : `the worker process (tsx src/main.ts): SIGTERM while Redis is down ${redisInstallHint}`;

const GRACE_PERIOD_MS = 3_000;

describe.skipIf(!available)(suiteName, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startWorkerOn(
    redis: RestartableRedisForTests,
    setting: { dataDir?: string; prefix?: string; environment?: Record<string, string> } = {},
  ): Promise<WorkerChild> {
    let dataDir = setting.dataDir;
    if (dataDir === undefined) {
      const directory = await temporaryDirectory('compactor-worker-redis-down-');
      cleanups.push(directory.remove);
      dataDir = directory.path;
    }
    const worker = spawnWorker({
      ...setting.environment,
      COMPACTOR_DATA_DIR: dataDir,
      COMPACTOR_QUEUE: 'bullmq',
      REDIS_URL: redis.url,
      COMPACTOR_QUEUE_PREFIX: setting.prefix ?? `{redis-down-${randomUUID()}}`,
      COMPACTOR_SWEEP_INTERVAL_MS: '500',
      COMPACTOR_SHUTDOWN_TIMEOUT_MS: String(GRACE_PERIOD_MS),
      COMPACTOR_LOCK_DURATION_MS: '1000',
      COMPACTOR_STALLED_INTERVAL_MS: '500',
    });
    cleanups.push(async () => {
      if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
      await worker.exited;
    });
    await worker.waitForLog('compaction worker ready');
    return worker;
  }

  it('exits within the grace period when Redis went away before the signal', async () => {
    const redis = await startRestartableRedisForTests();
    cleanups.push(() => redis.stop());
    const worker = await startWorkerOn(redis);
    await redis.takeDown();
    // Let the worker notice: its blocking connection and the sweeper now fail and reconnect.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const signalledAt = performance.now();
    worker.child.kill('SIGTERM');
    const exit = await Promise.race([
      worker.exited,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 20_000)),
    ]);
    const exitedAfterMs = performance.now() - signalledAt;

    expect(exit, worker.output()).not.toBe('still running');
    expect(exitedAfterMs, worker.output()).toBeLessThan(GRACE_PERIOD_MS);
  }, 60_000);

  it('exits shortly after the grace period when Redis goes away while a check runs', async () => {
    const redis = await startRestartableRedisForTests();
    cleanups.push(() => redis.stop());
    // A summarizer that takes longer than the grace period: the check is still running at the signal.
    const api = await startFakeMessagesApi();
    cleanups.push(() => api.close());
    api.setFallback(() => ({
      ...toolUseResponse(SUMMARY_TOOL_NAME, {
        currentTask: 'Plan the migration',
        facts: [],
        decisions: [],
        openItems: [],
        currentPlan: null,
        filesRead: [],
        filesModified: [],
        toolOutcomes: [],
      }),
      delayMs: 60_000,
    }));
    const directory = await temporaryDirectory('compactor-worker-redis-down-');
    cleanups.push(directory.remove);
    const threadId = `thread-${randomUUID().slice(0, 8)}`;
    const stores = await createEmbeddedStores({ dataDir: directory.path });
    const appended = await stores.events.append(
      'tenant-a',
      threadId,
      asInputs(longConversation(threadId).events),
    );
    await stores.close();
    const prefix = `{redis-down-${randomUUID()}}`;
    const worker = await startWorkerOn(redis, {
      dataDir: directory.path,
      prefix,
      environment: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url },
    });
    const producer = createBullmqJobQueue({ connection: { url: redis.url }, prefix });
    await producer.enqueueCompactionCheck(
      { tenantId: 'tenant-a', threadId, version: appended.version, reason: 'append' },
      { debounceMs: 0 },
    );
    await producer.close();
    await expect.poll(() => api.requests.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await redis.takeDown();

    const signalledAt = performance.now();
    worker.child.kill('SIGTERM');
    const exit = await Promise.race([
      worker.exited,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000)),
    ]);
    const exitedAfterMs = performance.now() - signalledAt;

    expect(exit, worker.output()).toEqual({ code: 0, signal: null });
    // The running check had its grace period, then was interrupted; closing took at most a few
    // bounded steps of half a second each (requeue, worker, producer), not Redis's reconnection.
    expect(exitedAfterMs, worker.output()).toBeGreaterThanOrEqual(GRACE_PERIOD_MS - 100);
    expect(exitedAfterMs, worker.output()).toBeLessThan(GRACE_PERIOD_MS + 2_500);
    expect(worker.logs.map((line) => line.msg)).toContain(
      'shutdown grace period over; interrupting running checks',
    );
    expect(worker.logs.map((line) => line.msg)).not.toContain('compaction plan committed');
  }, 90_000);
});
