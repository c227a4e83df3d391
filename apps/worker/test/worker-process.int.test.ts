import { randomUUID } from 'node:crypto';
import { createEmbeddedStores } from '@compactor/embedded';
import { createBullmqJobQueue } from '@compactor/queue';
import { SUMMARY_TOOL_NAME } from '@compactor/summarizer';
import {
  type FakeMessagesApi,
  type ScriptedResponse,
  startFakeMessagesApi,
  toolUseResponse,
} from '@compactor/testkit/fake-messages-api';
import {
  type RedisForTests,
  redisAvailableForTests,
  redisInstallHint,
  requireRedisForTests,
} from '@compactor/testkit/redis-server';
import { asInputs, longConversation } from '@compactor/testkit/sessions';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './support/temporary-directory.js';
import { spawnWorker, type WorkerChild } from './support/worker-process.js';

const available = redisAvailableForTests();
const suiteName = available
  ? 'the worker process (tsx src/main.ts): signals and crashes'
  : `the worker process (tsx src/main.ts): signals and crashes ${redisInstallHint}`;

const TENANT = 'tenant-a';
const goodSummary = {
  currentTask: 'Plan the billing migration',
  facts: ['Never run migrations against production.'],
  decisions: [{ decision: 'Move tables in batches', rationale: 'verify row counts' }],
  openItems: [],
  currentPlan: null,
  filesRead: [],
  filesModified: [],
  toolOutcomes: [],
};

describe.skipIf(!available)(suiteName, () => {
  let redis: RedisForTests;
  let api: FakeMessagesApi;
  /** How long the fake Messages API takes to answer; the "slow summarizer" of these tests. */
  let answerDelayMs = 0;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    redis = await requireRedisForTests();
    api = await startFakeMessagesApi();
    api.setFallback(
      (): ScriptedResponse => ({
        ...toolUseResponse(SUMMARY_TOOL_NAME, goodSummary),
        delayMs: answerDelayMs,
      }),
    );
  });
  afterAll(async () => {
    await api?.close();
    await redis?.stop();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    api.requests.length = 0;
  });

  interface Scenario {
    dataDir: string;
    prefix: string;
    threadId: string;
    version: number;
    eventCount: number;
    inspector: Queue;
    start(extra?: Record<string, string>): Promise<WorkerChild>;
    enqueueCheck(version?: number): Promise<void>;
  }

  /** A long thread stored in a fresh data directory, and how to start workers on it. */
  async function scenario(workerEnvironment: Record<string, string> = {}): Promise<Scenario> {
    const directory = await temporaryDirectory('compactor-worker-process-');
    cleanups.push(directory.remove);
    const threadId = `thread-${randomUUID().slice(0, 8)}`;
    const { events } = longConversation(threadId);
    const stores = await createEmbeddedStores({ dataDir: directory.path });
    const appended = await stores.events.append(TENANT, threadId, asInputs(events));
    await stores.close();
    const prefix = `{worker-process-${randomUUID()}}`;
    const connection = { url: redis.url };
    const producer = createBullmqJobQueue({ connection, prefix });
    const inspector = new Queue('compaction-check', { connection, prefix });
    cleanups.push(async () => {
      await producer.close();
      await inspector.obliterate({ force: true });
      await inspector.close();
    });
    return {
      dataDir: directory.path,
      prefix,
      threadId,
      version: appended.version,
      eventCount: events.length,
      inspector,
      async start(extra = {}) {
        const worker = spawnWorker({
          COMPACTOR_DATA_DIR: directory.path,
          COMPACTOR_QUEUE: 'bullmq',
          REDIS_URL: redis.url,
          COMPACTOR_QUEUE_PREFIX: prefix,
          ANTHROPIC_API_KEY: 'test-key',
          ANTHROPIC_BASE_URL: api.url,
          COMPACTOR_SWEEP_INTERVAL_MS: '0',
          // Short enough that a killed worker's check is recovered within the test, long enough that
          // a live worker on a loaded 2-core machine still renews its lock in time (1 s did not).
          COMPACTOR_LOCK_DURATION_MS: '3000',
          COMPACTOR_STALLED_INTERVAL_MS: '1000',
          ...workerEnvironment,
          ...extra,
        });
        cleanups.push(async () => {
          if (worker.child.exitCode === null && worker.child.signalCode === null)
            worker.child.kill('SIGKILL');
          await worker.exited;
        });
        await worker.waitForLog('compaction worker ready');
        return worker;
      },
      enqueueCheck: (version = appended.version) =>
        producer.enqueueCompactionCheck(
          { tenantId: TENANT, threadId, version, reason: 'append' },
          { debounceMs: 0 },
        ),
    };
  }

  async function planVersions(dataDir: string, threadId: string): Promise<number[]> {
    const stores = await createEmbeddedStores({ dataDir });
    try {
      return (await stores.plans.listVersions(TENANT, threadId)).map((entry) => entry.version);
    } finally {
      await stores.close();
    }
  }

  it('SIGTERM while a check runs: the worker finishes it, exits 0, and served metrics meanwhile', async () => {
    answerDelayMs = 1_500;
    const world = await scenario({ COMPACTOR_WORKER_METRICS_PORT: '0' });
    const worker = await world.start();
    const { port } = await worker.waitForLog('worker metrics listening');
    const readiness = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(readiness.status).toBe(200);
    expect(await readiness.json()).toEqual({
      ok: true,
      checks: { store: 'ok', artifacts: 'ok', queue: 'ok' },
    });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    await world.enqueueCheck();
    await expect.poll(() => api.requests.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const metricsText = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metricsText).toContain('# TYPE compactor_worker_jobs_total counter');
    expect(metricsText).toContain('process_cpu_user_seconds_total');
    worker.child.kill('SIGTERM');

    expect(await worker.exited, worker.output()).toEqual({ code: 0, signal: null });
    // The plan was committed after the signal: the running check was let finish.
    const messages = worker.logs.map((line) => line.msg);
    const signalled = messages.indexOf(
      'shutting down: no new checks; running ones finish or go back to the queue',
    );
    expect(signalled).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('compaction plan committed')).toBeGreaterThan(signalled);
    expect(await world.inspector.getCompletedCount()).toBe(1);
    const [completed] = await world.inspector.getJobs(['completed']);
    expect(completed?.returnvalue).toMatchObject({ status: 'compacted', planVersion: 1 });
    expect(completed!.returnvalue.summarizerCostUsd).toBeGreaterThan(0);
    expect(await planVersions(world.dataDir, world.threadId)).toEqual([1]);
  });

  it('SIGTERM past the grace period: the check goes back to the queue and a restarted worker completes it', async () => {
    answerDelayMs = 30_000;
    // The grace period is the whole shutdown (ADR-0100): the check, far longer, is interrupted
    // 1 s before it ends, and the close (requeue, connections, stores) has that second. With
    // 200 ms the close itself overran on the loaded machine (hard exit 1 at 200 ms, load 19).
    const world = await scenario({ COMPACTOR_SHUTDOWN_TIMEOUT_MS: '1500' });
    const first = await world.start();
    await world.enqueueCheck();
    await expect.poll(() => api.requests.length, { timeout: 15_000 }).toBeGreaterThan(0);
    first.child.kill('SIGTERM');

    expect(await first.exited, first.output()).toEqual({ code: 0, signal: null });
    expect(first.logs.map((line) => line.msg)).toContain(
      'shutdown grace period over; interrupting running checks',
    );
    expect(first.logs.map((line) => line.msg)).not.toContain('compaction plan committed');
    // Back in the queue: moved to waiting, or (when the machine is slow enough that the lock lapsed
    // first) still active until the stalled-job checker recovers it. Either way not done, not lost.
    const counts = await world.inspector.getJobCounts('wait', 'active', 'completed', 'failed');
    expect((counts.wait ?? 0) + (counts.active ?? 0)).toBe(1);
    expect(counts.completed ?? 0).toBe(0);
    expect(counts.failed ?? 0).toBe(0);
    expect(await planVersions(world.dataDir, world.threadId)).toEqual([]);

    answerDelayMs = 0;
    // The restarted worker's own lock is long: with 3 s, a loaded machine let it lapse mid-check, so the
    // check ran twice and the second run, finding the thread already compacted, answered `skipped`.
    const second = await world.start({ COMPACTOR_LOCK_DURATION_MS: '30000' });
    await expect.poll(() => world.inspector.getCompletedCount(), { timeout: 20_000 }).toBe(1);
    const [completed] = await world.inspector.getJobs(['completed']);
    expect(completed?.returnvalue, second.output()).toMatchObject({ status: 'compacted', planVersion: 1 });
    second.child.kill('SIGTERM');
    expect(await second.exited, second.output()).toEqual({ code: 0, signal: null });
    expect(await planVersions(world.dataDir, world.threadId)).toEqual([1]);
  });

  it('a second signal exits at once, without waiting for the running check', async () => {
    answerDelayMs = 30_000;
    const world = await scenario();
    const worker = await world.start();
    await world.enqueueCheck();
    await expect.poll(() => api.requests.length, { timeout: 15_000 }).toBeGreaterThan(0);
    worker.child.kill('SIGTERM');
    await worker.waitForLog('shutting down: no new checks; running ones finish or go back to the queue');
    const started = performance.now();
    worker.child.kill('SIGINT');

    expect(await worker.exited, worker.output()).toEqual({ code: 1, signal: null });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(worker.logs.map((line) => line.msg)).toContain(
      'second signal: exiting without waiting for running checks',
    );
    expect(await planVersions(world.dataDir, world.threadId)).toEqual([]);
  });

  it('SIGKILL mid-check: a restarted worker recovers the stalled check; one plan version, no event lost', async () => {
    answerDelayMs = 30_000;
    const world = await scenario();
    const doomed = await world.start();
    await world.enqueueCheck();
    await expect.poll(() => api.requests.length, { timeout: 15_000 }).toBeGreaterThan(0);
    doomed.child.kill('SIGKILL');
    expect(await doomed.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await world.inspector.getActiveCount()).toBe(1);

    // While no worker runs, the service keeps appending: the event is stored, and its check
    // waits behind the stalled one (one check per thread at a time).
    const stores = await createEmbeddedStores({ dataDir: world.dataDir });
    const late = await stores.events.append(TENANT, world.threadId, [
      {
        type: 'message.appended',
        eventId: 'late-event',
        message: { id: 'late', role: 'user', content: [{ type: 'text', text: 'Also keep an audit log.' }] },
      },
    ]);
    await stores.close();
    await world.enqueueCheck(late.version);

    answerDelayMs = 0;
    const survivor = await world.start();
    await expect.poll(() => world.inspector.getCompletedCount(), { timeout: 20_000 }).toBe(2);
    survivor.child.kill('SIGTERM');
    expect(await survivor.exited, survivor.output()).toEqual({ code: 0, signal: null });

    const completed = await world.inspector.getJobs(['completed']);
    const recovered = completed.find((job) => job.data.version === world.version);
    const next = completed.find((job) => job.data.version === late.version);
    expect(recovered?.stalledCounter).toBe(1);
    expect(recovered?.returnvalue).toMatchObject({ status: 'compacted', planVersion: 1 });
    // After the compaction the thread, late message included, is under its trigger: nothing to do.
    expect(next?.returnvalue).toEqual({ status: 'skipped' });
    expect(await world.inspector.getFailedCount()).toBe(0);
    expect(await planVersions(world.dataDir, world.threadId)).toEqual([1]);

    const reopened = await createEmbeddedStores({ dataDir: world.dataDir });
    try {
      const events = await reopened.events.readAll(TENANT, world.threadId);
      // Every appended event, the late one included, and the one won commit logged once (ADR-0190).
      expect(events).toHaveLength(world.eventCount + 2);
      expect(events.map((event) => event.eventId)).toContain('late-event');
      expect(events.filter((event) => event.type === 'plan.committed').map((event) => event.eventId)).toEqual(
        ['plan.committed:1'],
      );
    } finally {
      await reopened.close();
    }
  });
});
