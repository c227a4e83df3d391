/**
 * End-to-end 3, scale-out: two ingest processes and three worker processes on one PostgreSQL
 * (a fresh schema), Redis (BullMQ, a private redis-server) and s3rver. A few thousand events go
 * into a few hundred threads through both ingests at once, some sent to both at the same moment
 * and some sent again after their acknowledgement; one worker and one ingest are SIGKILLed
 * mid-run and the load fails over to the survivors. Then: every acknowledged event is stored
 * exactly once, in order; every thread's plan versions are contiguous with one commit each;
 * every thread renders within its ceiling from its committed plan (no emergency fit); no check
 * failed or stayed queued; and the test process heard every lifecycle event the workers stored
 * (LISTEN/NOTIFY across processes).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactorApiError, type CompactorClient, createCompactorClient } from '@compactor/client';
import { type EventInput, isConversationEvent, type LifecycleEvent } from '@compactor/core';
import { createPostgresStores, type LifecycleSubscription, type PostgresStores } from '@compactor/postgres';
import {
  describeWithPostgres,
  dropSchema,
  postgresForTests,
  uniqueSchemaName,
} from '@compactor/testkit/postgres';
import {
  type RedisForTests,
  redisAvailableForTests,
  redisInstallHint,
  requireRedisForTests,
} from '@compactor/testkit/redis-server';
import { type RunningS3rver, startS3rver } from '@compactor/testkit/s3rver';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppProcess, type LogLine, startApp } from './app-process.js';

const THREADS = 300;
const MESSAGES_PER_THREAD = 12;
/** Threads driven at once, each one request after another (so acknowledgement order is thread order). */
const DRIVERS = 24;
/** Small enough that every thread outgrows it several times over and must be compacted. */
const CONTEXT_WINDOW = 1_600;
const WORKER_CONCURRENCY = 4;
const KILL_AFTER_ACKNOWLEDGED = Math.floor(THREADS * MESSAGES_PER_THREAD * 0.4);
const KEY = 'key-scale';
const TENANT = 'tenant-scale';
const MODEL = 'claude-sonnet-4-5';
const BUCKET = 'compactor-scale-artifacts';

type MessageEvent = Extract<EventInput, { type: 'message.appended' }>;

function conversation(threadId: string): MessageEvent[] {
  return Array.from({ length: MESSAGES_PER_THREAD }, (_, index) => {
    const user = index % 2 === 0;
    const text = user
      ? `Question ${index} about ${threadId}: what next?`
      : `Step ${index}: ${'check the logs, restart the service and watch the queue depth. '.repeat(20)}`;
    return {
      eventId: `${threadId}-e${index}`,
      type: 'message.appended',
      message: {
        id: `${threadId}-m${index}`,
        role: user ? 'user' : 'assistant',
        content: [{ type: 'text', text }],
      },
    };
  });
}

interface Ingest {
  process: AppProcess;
  client: CompactorClient;
  alive: boolean;
  acknowledged: number;
}

const suiteName = 'scale-out: two ingests and three workers on PostgreSQL, Redis (BullMQ) and s3rver';
const postgres = await postgresForTests();

if (!redisAvailableForTests()) {
  describe.skip(`${suiteName} ${redisInstallHint}`, () => {
    it('needs Redis', () => {});
  });
} else {
  describeWithPostgres(postgres, suiteName, (databaseUrl) => {
    const schema = uniqueSchemaName('scale');
    const queuePrefix = `{scale-${randomUUID()}}`;
    let redis: RedisForTests;
    let s3: RunningS3rver | undefined;
    let workDirectory: string;
    let stores: PostgresStores | undefined;
    /** What this (test) process hears, by LISTEN/NOTIFY, of the lifecycle events the worker processes append. */
    const heard: LifecycleEvent[] = [];
    let subscription: LifecycleSubscription | undefined;
    const ingests: Ingest[] = [];
    const workers: AppProcess[] = [];
    let environment: Record<string, string>;

    beforeAll(async () => {
      workDirectory = await mkdtemp(join(tmpdir(), 'compactor-e2e-scale-'));
      redis = await requireRedisForTests();
      s3 = await startS3rver();
      await s3.createBucket(BUCKET);
      environment = {
        COMPACTOR_STORE: 'postgres',
        DATABASE_URL: databaseUrl,
        COMPACTOR_POSTGRES_SCHEMA: schema,
        COMPACTOR_QUEUE: 'bullmq',
        REDIS_URL: redis.url,
        COMPACTOR_QUEUE_PREFIX: queuePrefix,
        COMPACTOR_ARTIFACTS: 's3',
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: s3.endpoint,
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        COMPACTOR_DATA_DIR: join(workDirectory, 'data'),
        COMPACTOR_API_KEYS: `${KEY}=${TENANT}`,
        COMPACTOR_DEBOUNCE_MS: '300',
        COMPACTOR_SWEEP_INTERVAL_MS: '1000',
        COMPACTOR_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
        // A dead worker's checks are recovered about a second after its last lock renewal.
        COMPACTOR_LOCK_DURATION_MS: '1000',
        COMPACTOR_STALLED_INTERVAL_MS: '500',
        COMPACTOR_WORKER_METRICS_PORT: '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      };
      // All five start at once on a schema that does not exist yet: the migrations' advisory lock
      // makes exactly one of them create it.
      const starting = [0, 1].map((index) => startIngest(index));
      for (let index = 0; index < 3; index += 1) {
        workers.push(startApp('apps/worker/src/main.ts', environment));
      }
      ingests.push(...(await Promise.all(starting)));
      await Promise.all(
        workers.map((worker) =>
          worker.waitForLog((line) => line.msg === 'compaction worker ready', 'readiness', 90_000),
        ),
      );
      stores = createPostgresStores({ connectionString: databaseUrl, schema });
      subscription = await stores.subscribeToLifecycle((event) => heard.push(event), { tenantId: TENANT });
    }, 150_000);

    async function startIngest(index: number): Promise<Ingest> {
      const process = startApp('apps/ingest/src/main.ts', environment);
      const listening = await process.waitForLog(
        (line) =>
          typeof line.msg === 'string' && line.msg.startsWith('Server listening at http://127.0.0.1:'),
        `ingest ${index}'s address`,
        90_000,
      );
      const baseUrl = (listening.msg as string).slice('Server listening at '.length);
      // No retries of its own: on a failure the driver fails over to the other ingest.
      const client = createCompactorClient({ baseUrl, apiKey: KEY, retries: 0, timeoutMs: 15_000 });
      return { process, client, alive: true, acknowledged: 0 };
    }

    afterAll(async () => {
      await subscription?.close();
      for (const worker of workers) await worker.stop('SIGKILL');
      for (const ingest of ingests) await ingest.process.stop('SIGKILL');
      await stores?.close();
      await s3?.stop();
      await redis?.stop();
      await dropSchema(databaseUrl, schema).catch(() => {});
      await rm(workDirectory, { recursive: true, force: true });
    });

    let rotation = 0;
    let failovers = 0;
    /** Send through the next live ingest; on no answer (or a retryable status) send the same call again elsewhere. */
    async function send<T>(call: (client: CompactorClient) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt += 1) {
        const live = ingests.filter((ingest) => ingest.alive);
        const ingest = live[rotation++ % live.length]!;
        try {
          const result = await call(ingest.client);
          ingest.acknowledged += 1;
          return result;
        } catch (error) {
          if (CompactorApiError.isInstance(error) && !error.isRetryable) throw error;
          if (attempt >= 30) throw error;
          failovers += 1;
          await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
        }
      }
    }

    it('keeps every acknowledged event once and in order, one commit per plan version, every thread within its ceiling', async () => {
      const threadIds = Array.from({ length: THREADS }, (_, index) => `scale-${index}`);
      /** Per thread, the event ids in acknowledgement order. */
      const acknowledged = new Map<string, string[]>(threadIds.map((threadId) => [threadId, []]));
      let acknowledgedMessages = 0;
      let killed: Promise<unknown> | undefined;
      const killedWorker = workers[0]!;

      const killOneOfEach = () => {
        ingests[0]!.alive = false;
        killed = Promise.all([ingests[0]!.process.stop('SIGKILL'), killedWorker.stop('SIGKILL')]);
      };

      async function drive(threadId: string) {
        await send((client) =>
          client.createThread({
            threadId,
            model: MODEL,
            contextWindow: CONTEXT_WINDOW,
            eventId: `${threadId}-created`,
          }),
        );
        acknowledged.get(threadId)!.push(`${threadId}-created`);
        // Seqs rise with each acknowledged event; the service's own plan.committed records (ADR-0190)
        // may take seqs in between, so each answer is checked against the previous one, not a count.
        let lastSeq = 1;
        for (const [index, event] of conversation(threadId).entries()) {
          let seq: number;
          if (index % 7 === 3) {
            // The same event sent to both ingests at the same moment: both answer with its one seq
            // (that it is stored once is checked against the log at the end).
            const both = await Promise.all([
              send((client) => client.appendEvents(threadId, [event])),
              send((client) => client.appendEvents(threadId, [event])),
            ]);
            seq = both[0]!.events[0]!.seq;
            expect(both.map((answer) => answer.events[0]?.seq)).toEqual([seq, seq]);
          } else {
            const answer = await send((client) => client.appendEvents(threadId, [event]));
            seq = answer.events[0]!.seq;
          }
          expect(seq).toBeGreaterThan(lastSeq);
          lastSeq = seq;
          acknowledged.get(threadId)!.push(event.eventId);
          if (index % 5 === 1) {
            // A client retry after the acknowledgement was lost: nothing stored twice, the same seq.
            const retried = await send((client) => client.appendEvents(threadId, [event]));
            expect(retried).toMatchObject({ duplicates: 1, events: [{ seq }] });
          }
          acknowledgedMessages += 1;
          if (acknowledgedMessages === KILL_AFTER_ACKNOWLEDGED) killOneOfEach();
        }
      }

      const started = Date.now();
      const queue = [...threadIds];
      await Promise.all(
        Array.from({ length: DRIVERS }, async () => {
          for (let threadId = queue.shift(); threadId !== undefined; threadId = queue.shift())
            await drive(threadId);
        }),
      );
      const loadSeconds = (Date.now() - started) / 1000;
      await killed;
      expect(killed, 'the kill happened mid-run').toBeDefined();
      expect(ingests[0]!.acknowledged, 'the killed ingest served part of the load').toBeGreaterThan(100);
      expect(ingests[1]!.acknowledged).toBeGreaterThan(100);

      // No check lost: the queue drains, nothing failed.
      const checks = new Queue('compaction-check', { connection: { url: redis.url }, prefix: queuePrefix });
      try {
        await expect
          .poll(
            async () => {
              const counts = await checks.getJobCounts(
                'waiting',
                'active',
                'delayed',
                'prioritized',
                'failed',
              );
              return counts;
            },
            { timeout: 90_000, interval: 500 },
          )
          .toEqual({ waiting: 0, active: 0, delayed: 0, prioritized: 0, failed: 0 });
      } finally {
        await checks.close();
      }

      const { events, plans, pool, names } = stores!;
      // Every acknowledged event exactly once, in acknowledgement order, seqs 1..n.
      for (const threadId of threadIds) {
        const stored = await events.readAll(TENANT, threadId);
        // The service's own records (plan.committed, ADR-0190) interleave; the conversation is exact.
        expect(
          stored.filter((event) => isConversationEvent(event.type)).map((event) => event.eventId),
        ).toEqual(acknowledged.get(threadId));
        expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
      }

      // Plan versions contiguous from 1 for every thread, each committed by exactly one worker.
      const versions = await pool.query<{ thread_id: string; versions: number[] }>(
        `SELECT thread_id, array_agg(version ORDER BY version) AS versions FROM ${names.plans}
          WHERE tenant_id = $1 GROUP BY thread_id`,
        [TENANT],
      );
      expect(versions.rows.length).toBe(THREADS);
      const stored = new Set<string>();
      for (const row of versions.rows) {
        expect(row.versions).toEqual(row.versions.map((_, index) => index + 1));
        for (const version of row.versions) stored.add(`${row.thread_id}@${version}`);
      }
      const committedLines = workers
        .flatMap((worker) => worker.logs)
        .filter((line: LogLine) => line.msg === 'compaction plan committed')
        .map((line) => `${String(line.threadId)}@${String(line.version)}`);
      expect(new Set(committedLines).size, 'a plan version committed twice').toBe(committedLines.length);
      for (const commit of committedLines) expect(stored.has(commit), commit).toBe(true);
      // Only the SIGKILLed worker can have committed without living to log it.
      expect(stored.size - committedLines.length).toBeLessThanOrEqual(WORKER_CONCURRENCY);

      // Every thread compacted to within its ceiling by its committed plan, the renderer's emergency fit unused.
      const survivor = ingests[1]!.client;
      for (const threadId of threadIds) {
        const prompt = await survivor.renderPrompt(threadId, { provider: 'anthropic' });
        expect(prompt.report.planVersion, threadId).toBeGreaterThanOrEqual(1);
        expect(prompt.report.emergencyFit, threadId).toBeNull();
        expect(prompt.tokens.total).toBeLessThanOrEqual(prompt.report.ceiling);
        expect((await plans.getCurrent(TENANT, threadId)).version).toBe(prompt.report.planVersion);
      }

      // Lifecycle events cross processes: every one the workers stored reached this process's LISTEN.
      const lifecycleRows = await pool.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${names.lifecycleEvents} WHERE tenant_id = $1`,
        [TENANT],
      );
      expect(lifecycleRows.rows[0]!.count).toBeGreaterThan(0);
      await expect.poll(() => heard.length, { timeout: 10_000 }).toBe(lifecycleRows.rows[0]!.count);
      expect(heard.filter((event) => event.name === 'compaction_completed').length).toBeGreaterThan(0);

      const totalEvents = THREADS * (MESSAGES_PER_THREAD + 1);
      process.stdout.write(
        `scale-out: ${totalEvents} events into ${THREADS} threads in ${loadSeconds.toFixed(1)} s through 2 ingests ` +
          `(${failovers} failed-over requests), ${stored.size} plan versions committed by 3 workers\n`,
      );
    }, 170_000);
  });
}
