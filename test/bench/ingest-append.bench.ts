/**
 * Single-event append throughput of one ingest process, measured from a separate load process
 * (append-load.ts, autocannon), beside the #17 target and beside the same store called directly.
 * The ingest runs as deployed: `apps/ingest` in its own process, default logging (info), the
 * in-process queue and worker, every append durable before it is acknowledged.
 *
 *   pnpm --filter @compactor/e2e bench:ingest [-- --store embedded|postgres --duration 10 --connections 32 --threads 16 --runs 3]
 *
 * `--store postgres` needs PostgreSQL (a fresh schema per run) and reports only (no target yet).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createCompactorClient } from '@compactor/client';
import type { EventInput, EventStore } from '@compactor/core';
import { EmbeddedEventStore } from '@compactor/embedded';
import { createPostgresStores } from '@compactor/postgres';
import { dropSchema, postgresForTests, uniqueSchemaName } from '@compactor/testkit/postgres';
import { repositoryRoot } from '../e2e/serve-process.js';
import { freePort, runLoad, stop, waitForHealth } from './bench-processes.js';

/** Issue #17: single-event appends over 16 threads, embedded store, durable before acknowledged. */
const TARGET_APPENDS_PER_SECOND = 5_000;
const TARGET_P99_MS = 20;
const API_KEY = 'bench-key';
const TENANT = 'tenant-bench';

const { values } = parseArgs({
  // pnpm passes its own `--` separator through.
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    store: { type: 'string', default: 'embedded' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '16' },
    runs: { type: 'string', default: '1' },
    'cpu-prof-dir': { type: 'string' },
    /** Another checkout's root, to measure its ingest (e.g. main) with this load. */
    'ingest-root': { type: 'string' },
  },
});
const store = values.store === 'postgres' ? 'postgres' : 'embedded';
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const threadCount = Number(values.threads);
const runs = Number(values.runs);
const ingestRoot = values['ingest-root'] ? resolve(values['ingest-root']) : repositoryRoot;

interface LoadResult {
  appendsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  loadAverage: string;
}

const postgres = store === 'postgres' ? await postgresForTests() : undefined;
if (postgres && !postgres.available) {
  process.stdout.write(`skipped: no PostgreSQL at ${postgres.url} (${postgres.reason})\n`);
  process.exit(0);
}
const workDirectory = await mkdtemp(join(tmpdir(), 'compactor-bench-ingest-'));
const http: LoadResult[] = [];
const direct: LoadResult[] = [];
try {
  for (let run = 0; run < runs; run += 1) {
    http.push(await measureHttp(run));
    direct.push(await measureDirect(run));
  }
} finally {
  await rm(workDirectory, { recursive: true, force: true });
}

process.stdout.write(
  `\nSingle-event appends, store ${store}, ${threadCount} threads, ${connections} connections, ${durationSeconds} s per run\n\n`,
);
process.stdout.write('| path | appends/s | p50 ms | p99 ms | failed | load average (1, 5, 15 min) |\n');
process.stdout.write('| --- | --: | --: | --: | --: | --- |\n');
for (const [label, rows] of [
  ['HTTP, separate autocannon process', http],
  ['store called directly (same concurrency)', direct],
] as const) {
  for (const row of rows) {
    process.stdout.write(
      `| ${label} | ${row.appendsPerSecond} | ${row.p50Ms} | ${row.p99Ms} | ${row.failed} | ${row.loadAverage} |\n`,
    );
  }
}
if (store === 'embedded') {
  const best = http.reduce((left, right) => (right.appendsPerSecond > left.appendsPerSecond ? right : left));
  const met = best.appendsPerSecond >= TARGET_APPENDS_PER_SECOND && best.p99Ms <= TARGET_P99_MS;
  process.stdout.write(
    `\ntarget: ≥ ${TARGET_APPENDS_PER_SECOND} appends/s with p99 ≤ ${TARGET_P99_MS} ms; best HTTP run ${best.appendsPerSecond}/s, p99 ${best.p99Ms} ms: ${met ? 'met' : 'NOT met'}\n`,
  );
} else {
  process.stdout.write('\nPostgreSQL: reported only (no target yet)\n');
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}

function storeEnvironment(run: number): { env: Record<string, string>; cleanup: () => Promise<void> } {
  const dataDir = join(workDirectory, `http-${run}`);
  if (store === 'embedded') {
    return { env: { COMPACTOR_STORE: 'embedded', COMPACTOR_DATA_DIR: dataDir }, cleanup: async () => {} };
  }
  const schema = uniqueSchemaName('bench_ingest');
  return {
    env: {
      COMPACTOR_STORE: 'postgres',
      DATABASE_URL: postgres!.url,
      COMPACTOR_POSTGRES_SCHEMA: schema,
      COMPACTOR_DATA_DIR: dataDir,
    },
    cleanup: () => dropSchema(postgres!.url, schema),
  };
}

async function measureHttp(run: number): Promise<LoadResult> {
  const port = await freePort();
  const { env, cleanup } = storeEnvironment(run);
  const profile = values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : [];
  const ingest = spawn(
    process.execPath,
    [...profile, '--import', 'tsx', resolve(ingestRoot, 'apps/ingest/src/main.ts')],
    {
      cwd: resolve(ingestRoot, 'apps/ingest'),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        // libuv's pool runs every fs call (writes, fdatasync); passed through to compare sizes.
        ...(process.env.UV_THREADPOOL_SIZE ? { UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE } : {}),
        ...env,
        COMPACTOR_API_KEYS: `${API_KEY}=${TENANT}`,
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      // Default logging (info): the lines are formatted and written; nobody here reads them.
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url);
    const client = createCompactorClient({ baseUrl: url, apiKey: API_KEY });
    const threadIds = Array.from({ length: threadCount }, (_, index) => `bench-${index}`);
    for (const threadId of threadIds) {
      await client.createThread({ threadId, model: 'claude-sonnet-4-5', contextWindow: 200_000 });
    }
    const result = await runLoad({ urls: [url], apiKey: API_KEY, threadIds, connections, durationSeconds });
    const row = {
      appendsPerSecond: Number(result.appendsPerSecond),
      p50Ms: Number(result.p50Ms),
      p99Ms: Number(result.p99Ms),
      failed: Number(result.failed),
      loadAverage: loadAverage(),
    };
    process.stderr.write(`http run ${run + 1}: ${JSON.stringify(row)}\n`);
    return row;
  } finally {
    await stop(ingest);
    await cleanup();
  }
}

/** The same workload (same events, threads and concurrency) on the store called in this process. */
async function measureDirect(run: number): Promise<LoadResult> {
  const { events, close } = await openDirectStore(run);
  try {
    const threadIds = Array.from({ length: threadCount }, (_, index) => `direct-${index}`);
    for (const threadId of threadIds) {
      await events.append(TENANT, threadId, [
        { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
      ]);
    }
    const latencies: number[] = [];
    let next = 0;
    let failed = 0;
    const started = performance.now();
    const deadline = started + durationSeconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < deadline) {
          const index = next++;
          const id = `d-${index}`;
          const event: EventInput = {
            eventId: id,
            type: 'message.appended',
            message: { id: `m-${id}`, role: 'user', content: [{ type: 'text', text: `load message ${id}` }] },
          } as EventInput;
          const before = performance.now();
          try {
            await events.append(TENANT, threadIds[index % threadCount]!, [event]);
            latencies.push(performance.now() - before);
          } catch {
            failed += 1;
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((left, right) => left - right);
    const percentile = (fraction: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))]! * 10) /
      10;
    const row = {
      appendsPerSecond: Math.round(latencies.length / seconds),
      p50Ms: percentile(0.5),
      p99Ms: percentile(0.99),
      failed,
      loadAverage: loadAverage(),
    };
    process.stderr.write(`direct run ${run + 1}: ${JSON.stringify(row)}\n`);
    return row;
  } finally {
    await close();
  }
}

async function openDirectStore(run: number): Promise<{ events: EventStore; close: () => Promise<void> }> {
  if (store === 'embedded') {
    const events = new EmbeddedEventStore({ dataDir: join(workDirectory, `direct-${run}`) });
    return { events, close: () => events.close() };
  }
  const schema = uniqueSchemaName('bench_direct');
  const stores = createPostgresStores({ connectionString: postgres!.url, schema });
  await stores.migrate();
  return {
    events: stores.events,
    close: async () => {
      await stores.close();
      await dropSchema(postgres!.url, schema);
    },
  };
}
