import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, loadRuntimeConfig, type Runtime } from '@compactor/runtime';
import {
  type RestartableRedisForTests,
  redisInstallHint,
  restartableRedisAvailableForTests,
  startRestartableRedisForTests,
} from '@compactor/testkit/redis-server';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IngestServer, loadIngestConfig, startIngestServer } from '../src/index.js';
import { appendEvents, createThread, KEY_A, messageEvent, TENANT_A } from './support.js';

const available = restartableRedisAvailableForTests();
const suiteName = available
  ? 'Redis stopped and restarted under appends (ingest + worker on BullMQ)'
  : `Redis stopped and restarted under appends (ingest + worker on BullMQ) ${redisInstallHint}`;

const ENQUEUE_TIMEOUT_MS = 2_000;
/** Per append while Redis is down and the circuit is open: generous, yet far below the timeout. */
const FAST_APPEND_MS = 400;
const THREADS = 5;
const APPENDS_PER_THREAD_DURING_OUTAGE = 4;

describe.skipIf(!available)(suiteName, () => {
  let redis: RestartableRedisForTests;
  let dataDir: string;
  let ingest: IngestServer;
  let inspector: Queue;
  let runtime: Runtime;

  beforeAll(async () => {
    redis = await startRestartableRedisForTests();
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-redis-outage-'));
    const prefix = `{outage-${randomUUID()}}`;
    const logger = pino({ level: 'silent' });
    runtime = await createRuntime(
      loadRuntimeConfig({
        COMPACTOR_DATA_DIR: dataDir,
        COMPACTOR_QUEUE: 'bullmq',
        REDIS_URL: redis.url,
        COMPACTOR_QUEUE_PREFIX: prefix,
        COMPACTOR_DEBOUNCE_MS: '0',
        COMPACTOR_ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS),
        COMPACTOR_QUEUE_PROBE_INITIAL_MS: '200',
        COMPACTOR_QUEUE_PROBE_MAX_MS: '1000',
        COMPACTOR_SWEEP_INTERVAL_MS: '250',
        COMPACTOR_STALLED_INTERVAL_MS: '500',
        COMPACTOR_LOCK_DURATION_MS: '1000',
        COMPACTOR_SHUTDOWN_TIMEOUT_MS: '1000',
      }),
      { logger },
    );
    ingest = await startIngestServer({
      runtime,
      ingest: loadIngestConfig({ COMPACTOR_API_KEYS: `${KEY_A}=${TENANT_A}` }),
      logger,
      runWorker: true,
    });
    inspector = new Queue('compaction-check', { connection: { url: redis.url }, prefix });
    // It sees the outage too; its connection errors are expected, not failures of the test.
    inspector.on('error', () => {});
  });

  afterAll(async () => {
    await redis?.restart();
    await inspector?.obliterate({ force: true }).catch(() => {});
    await inspector?.close();
    await ingest?.close();
    await redis?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps appends fast and marks threads pending while Redis is down; after it returns the circuit closes, the sweeper checks every thread, and no event is lost', async () => {
    const { app, worker } = ingest;
    const threadIds = Array.from({ length: THREADS }, (_, index) => `outage-${index}`);
    for (const threadId of threadIds) {
      await createThread(app, KEY_A, { threadId, model: 'gpt-4o' });
      expect((await appendEvents(app, KEY_A, threadId, [messageEvent('user', 'before')])).statusCode).toBe(
        201,
      );
    }

    await redis.takeDown();
    const latencies: number[] = [];
    for (let round = 0; round < APPENDS_PER_THREAD_DURING_OUTAGE; round += 1) {
      for (const threadId of threadIds) {
        const started = performance.now();
        const response = await appendEvents(app, KEY_A, threadId, [messageEvent('user', `during ${round}`)]);
        latencies.push(performance.now() - started);
        expect(response.statusCode).toBe(201);
      }
    }
    // The first append learns of the outage (it may wait up to the enqueue timeout); every later
    // one is answered without asking Redis.
    expect(latencies[0]).toBeLessThan(ENQUEUE_TIMEOUT_MS + 1_000);
    const afterFirst = latencies.slice(1);
    expect(
      Math.max(...afterFirst),
      `append latencies: ${afterFirst.map(Math.round).join(', ')} ms`,
    ).toBeLessThan(FAST_APPEND_MS);
    expect((await runtimeEvents().listCompactionPending()).map((entry) => entry.threadId).sort()).toEqual(
      [...threadIds].sort(),
    );

    await redis.restart();
    // thread.created, the append before the outage, and those during it.
    const finalVersion = 2 + APPENDS_PER_THREAD_DURING_OUTAGE;
    // The worker's sweeper enqueues every pending thread through the same (now closed) circuit,
    // and the consumer runs each check of the newest version.
    await expect
      .poll(async () => (await runtimeEvents().listCompactionPending()).length, { timeout: 30_000 })
      .toBe(0);
    await expect
      .poll(
        async () => {
          const completed = await inspector.getJobs(['completed']);
          return threadIds.filter((threadId) =>
            completed.some(
              (job) =>
                job.data.threadId === threadId &&
                job.data.reason === 'sweeper' &&
                job.data.version === finalVersion,
            ),
          ).length;
        },
        { timeout: 30_000 },
      )
      .toBe(THREADS);
    expect(worker).toBeDefined();

    for (const threadId of threadIds) {
      const events = await runtimeEvents().readAll(TENANT_A, threadId);
      expect(events).toHaveLength(finalVersion);
    }
    // Closed again: the next append is enqueued, not marked pending.
    const started = performance.now();
    expect((await appendEvents(app, KEY_A, threadIds[0]!, [messageEvent('user', 'after')])).statusCode).toBe(
      201,
    );
    expect(performance.now() - started).toBeLessThan(FAST_APPEND_MS);
    expect((await runtimeEvents().getThread(TENANT_A, threadIds[0]!))?.compactionPending).toBe(false);
  }, 90_000);

  function runtimeEvents() {
    return runtime.stores.events;
  }
});
