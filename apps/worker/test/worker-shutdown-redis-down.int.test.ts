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
/**
 * What the test may see beyond the grace period: the signal's delivery, and the exit's reaching
 * this process (the child calls `process.exit` by its deadline at the latest). Measured on the
 * shared 2-core machine at load average 12–15: the child logged the signal 1–20 ms after it was
 * sent, and its last line 18–37 ms before this process saw the exit; 300 ms is ample for both.
 */
const PROCESS_EXIT_MARGIN_MS = 300;
/** Of the grace period, what the worker keeps for requeueing and closing (ADR-0100). */
const CLOSING_RESERVE_MS = 1_000;

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

  it('exits within the grace period when Redis goes away while a check runs', async () => {
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
    const signalledAtEpoch = Date.now();
    worker.child.kill('SIGTERM');
    const exit = await Promise.race([
      worker.exited,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000)),
    ]);
    const exitedAfterMs = performance.now() - signalledAt;
    const exitSeenAtEpoch = Date.now();
    const loggedAt = (message: string) => worker.logs.find((line) => line.msg === message)?.time;
    const timings = `exit seen ${Math.round(exitedAfterMs)} ms after SIGTERM; child logged the signal ${
      Number(loggedAt('shutting down: no new checks; running ones finish or go back to the queue')) -
      signalledAtEpoch
    } ms and "stopped" ${exitSeenAtEpoch - Number(loggedAt('compaction worker stopped'))} ms before the exit was seen`;

    // A clean exit (0), not the hard exit at the deadline: requeue and close fitted in the grace period.
    expect(exit, `${timings}\n${worker.output()}`).toEqual({ code: 0, signal: null });
    // The whole shutdown, the interrupted check's requeue and the dropped connections included,
    // fits in the grace period: Redis being gone adds nothing after it.
    expect(exitedAfterMs, `${timings}\n${worker.output()}`).toBeLessThan(
      GRACE_PERIOD_MS + PROCESS_EXIT_MARGIN_MS,
    );
    // The running check had the grace period less the closing reserve before it was interrupted.
    expect(exitedAfterMs, timings).toBeGreaterThanOrEqual(GRACE_PERIOD_MS - CLOSING_RESERVE_MS - 100);
    expect(worker.logs.map((line) => line.msg)).toContain(
      'shutdown grace period over; interrupting running checks',
    );
    expect(worker.logs.map((line) => line.msg)).not.toContain('compaction plan committed');
  }, 90_000);
});
