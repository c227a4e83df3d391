/**
 * Single-event append throughput of one ingest process, measured from a separate load process
 * (append-load.ts, autocannon), beside the #17 target and beside the same store called directly.
 * The server runs as deployed, in its own process, at default logging (info), with the in-process
 * queue and worker, every append durable before it is acknowledged. Servers (`--servers`, run in
 * turn within each round, so a comparison is paired under the same machine load):
 *
 * - `serve`: `compactor serve` through its bin, i.e. the built JavaScript bundle (ADR-0081) with the
 *   libuv pool size the bin sets (ADR-0131) — what a user runs;
 * - `ingest`: `apps/ingest/src/main.ts` through tsx, as `pnpm --filter @compactor/ingest start`;
 * - a `:poolN` suffix (`serve:pool4`) sets UV_THREADPOOL_SIZE=N for that server;
 * - a `:every-full-gc` or `:v8-default` suffix (`ingest:v8-default`) sets COMPACTOR_HEAP_COMPACTION
 *   for that server (ADR-0355; suffixes combine: `serve:pool4:v8-default`);
 * - an `@<checkout>` suffix (`serve@/tmp/base`) runs another checkout's server (e.g. a
 *   `git archive` of main with this checkout's node_modules linked in) under the same load.
 *
 *   pnpm --filter @compactor/e2e bench:ingest [-- --store embedded|postgres --servers serve,ingest
 *     --duration 10 --warmup 2 --connections 32 --threads 16 --runs 3 --no-direct --direct-from <checkout>]
 *
 * `--servers none` runs only the direct rows; `--direct-from` adds direct rows on another
 * checkout's embedded store, paired with this one's.
 *
 * Besides throughput and latency each row gives the server's CPU per append (its own user + system
 * time during the measured run ÷ appends; far less sensitive to other load on the machine than
 * throughput) and the load generator's CPU. `--store postgres` needs PostgreSQL (a fresh schema
 * per run) and reports only (no target yet).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
import { cpuSecondsOf, freePort, runLoad, stop, waitForHealth } from './bench-processes.js';

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
    servers: { type: 'string', default: 'serve' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '16' },
    runs: { type: 'string', default: '1' },
    'no-direct': { type: 'boolean', default: false },
    /** Also run the direct rows on another checkout's embedded store (paired with this one's). */
    'direct-from': { type: 'string' },
    'cpu-prof-dir': { type: 'string' },
    /** Another checkout's root, to measure its server (e.g. main's) with this load. */
    'ingest-root': { type: 'string' },
  },
});
const store = values.store === 'postgres' ? 'postgres' : 'embedded';
const durationSeconds = Number(values.duration);
const warmupSeconds = Number(values.warmup);
const connections = Number(values.connections);
const threadCount = Number(values.threads);
const runs = Number(values.runs);
const ingestRoot = values['ingest-root'] ? resolve(values['ingest-root']) : repositoryRoot;

interface ServerVariant {
  label: string;
  kind: 'serve' | 'ingest';
  poolSize: string | undefined;
  heapCompaction: string | undefined;
  root: string;
}

const HEAP_COMPACTION_SUFFIXES = ['every-full-gc', 'v8-default'];

const servers: ServerVariant[] = (values.servers === 'none' ? [] : values.servers.split(',')).map((label) => {
  const [spec, root] = label.trim().split('@');
  const [kind, ...suffixes] = spec!.split(':');
  if (kind !== 'serve' && kind !== 'ingest') throw new Error(`unknown server ${label}: serve or ingest`);
  let poolSize: string | undefined;
  let heapCompaction: string | undefined;
  for (const suffix of suffixes) {
    const pool = /^pool(\d+)$/.exec(suffix)?.[1];
    if (pool !== undefined) poolSize = pool;
    else if (HEAP_COMPACTION_SUFFIXES.includes(suffix)) heapCompaction = suffix;
    else throw new Error(`unknown server option ${suffix}: poolN, ${HEAP_COMPACTION_SUFFIXES.join(' or ')}`);
  }
  return { label: label.trim(), kind, poolSize, heapCompaction, root: root ? resolve(root) : ingestRoot };
});

interface LoadResult {
  label: string;
  appendsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  /** Server CPU (user + system) per acknowledged append, in ms; NaN in-process or off Linux. */
  serverCpuMsPerAppend: number;
  /** The load generator's CPU in cores; NaN for the direct runs (no separate load process). */
  loadCpuCores: number;
  /** Direct embedded runs: fdatasync calls per acknowledged append (below 1 when appends share syncs). */
  syncsPerAppend: number;
  loadAverage: string;
}

const postgres = store === 'postgres' ? await postgresForTests() : undefined;
if (postgres && !postgres.available) {
  process.stdout.write(`skipped: no PostgreSQL at ${postgres.url} (${postgres.reason})\n`);
  process.exit(0);
}
const workDirectory = await mkdtemp(join(tmpdir(), 'compactor-bench-ingest-'));
const rows: LoadResult[] = [];
try {
  for (let run = 0; run < runs; run += 1) {
    // Each round runs every server in turn (the order rotating), so each comparison is paired.
    for (let turn = 0; turn < servers.length; turn += 1) {
      rows.push(await measureHttp(servers[(run + turn) % servers.length]!, run));
    }
    if (!values['no-direct']) {
      const roots = values['direct-from']
        ? [resolve(values['direct-from']), repositoryRoot]
        : [repositoryRoot];
      for (let turn = 0; turn < roots.length; turn += 1) {
        rows.push(await measureDirect(run, roots[(run + turn) % roots.length]!));
      }
    }
  }
} finally {
  await rm(workDirectory, { recursive: true, force: true });
}

process.stdout.write(
  `\nSingle-event appends, store ${store}, ${threadCount} threads, ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s per run, ${runs} round(s)\n\n`,
);
process.stdout.write(
  '| path | appends/s | p50 ms | p99 ms | failed | server CPU ms/append | load generator CPU (cores) | fdatasyncs/append | load average (1, 5, 15 min) |\n',
);
process.stdout.write('| --- | --: | --: | --: | --: | --: | --: | --: | --- |\n');
for (const row of rows) {
  process.stdout.write(
    `| ${row.label} | ${row.appendsPerSecond} | ${row.p50Ms} | ${row.p99Ms} | ${row.failed} | ${formatNumber(row.serverCpuMsPerAppend, 3)} | ${formatNumber(row.loadCpuCores, 2)} | ${formatNumber(row.syncsPerAppend, 2)} | ${row.loadAverage} |\n`,
  );
}
if (servers.length > 1) {
  process.stdout.write(
    '\nMedians per server over the rounds:\n\n| server | appends/s | p99 ms | server CPU ms/append |\n| --- | --: | --: | --: |\n',
  );
  for (const server of servers) {
    const mine = rows.filter((row) => row.label === `HTTP ${server.label}`);
    process.stdout.write(
      `| ${server.label} | ${median(mine.map((row) => row.appendsPerSecond))} | ${median(mine.map((row) => row.p99Ms))} | ${formatNumber(median(mine.map((row) => row.serverCpuMsPerAppend)), 3)} |\n`,
    );
  }
}
const http = rows.filter((row) => row.label.startsWith('HTTP'));
if (store === 'embedded' && http.length > 0) {
  const best = http.reduce((left, right) => (right.appendsPerSecond > left.appendsPerSecond ? right : left));
  const met = best.appendsPerSecond >= TARGET_APPENDS_PER_SECOND && best.p99Ms <= TARGET_P99_MS;
  process.stdout.write(
    `\ntarget: ≥ ${TARGET_APPENDS_PER_SECOND} appends/s with p99 ≤ ${TARGET_P99_MS} ms; best HTTP run ${best.label} ${best.appendsPerSecond}/s, p99 ${best.p99Ms} ms: ${met ? 'met' : 'NOT met'}\n`,
  );
} else if (store === 'postgres') {
  process.stdout.write('\nPostgreSQL: reported only (no target yet)\n');
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((left, right) => left - right);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function formatNumber(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}

function storeEnvironment(name: string): { env: Record<string, string>; cleanup: () => Promise<void> } {
  const dataDir = join(workDirectory, name);
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

function startServer(
  server: ServerVariant,
  port: number,
  env: Record<string, string>,
  logPath: string,
): ChildProcess {
  const profile = values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : [];
  const entry =
    server.kind === 'serve'
      ? [
          resolve(server.root, 'apps/cli/bin/compactor.js'),
          'serve',
          '--port',
          String(port),
          '--host',
          '127.0.0.1',
        ]
      : ['--import', 'tsx', resolve(server.root, 'apps/ingest/src/main.ts')];
  // As set by the bin (serve) and the ingest's start script, unless a variant or the environment says.
  const poolSize =
    server.poolSize ?? process.env.UV_THREADPOOL_SIZE ?? (server.kind === 'ingest' ? '16' : undefined);
  // Logs (default level) are written to a file, as a deployment would ship them; nobody parses them.
  const log = openSync(logPath, 'a');
  return spawn(process.execPath, [...profile, ...entry], {
    cwd: server.kind === 'serve' ? server.root : resolve(server.root, 'apps/ingest'),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(poolSize ? { UV_THREADPOOL_SIZE: poolSize } : {}),
      ...(server.heapCompaction ? { COMPACTOR_HEAP_COMPACTION: server.heapCompaction } : {}),
      ...env,
      COMPACTOR_API_KEYS: `${API_KEY}=${TENANT}`,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', log, log],
  });
}

async function measureHttp(server: ServerVariant, run: number): Promise<LoadResult> {
  const port = await freePort();
  const name = `http-${server.label.replace(/\W/g, '_')}-${run}`;
  const { env, cleanup } = storeEnvironment(name);
  const logPath = join(workDirectory, `${name}.log`);
  const child = startServer(server, port, env, logPath);
  try {
    const url = `http://127.0.0.1:${port}`;
    await Promise.race([
      waitForHealth(url),
      new Promise((_, reject) =>
        child.once('exit', async (code) =>
          reject(new Error(`${server.label} exited with ${code}:\n${await readFile(logPath, 'utf8')}`)),
        ),
      ),
    ]);
    const client = createCompactorClient({ baseUrl: url, apiKey: API_KEY });
    const threadIds = Array.from({ length: threadCount }, (_, index) => `bench-${index}`);
    for (const threadId of threadIds) {
      await client.createThread({ threadId, model: 'claude-sonnet-4-5', contextWindow: 200_000 });
    }
    let cpuAtStart = Number.NaN;
    const result = await runLoad(
      { urls: [url], apiKey: API_KEY, threadIds, connections, durationSeconds, warmupSeconds },
      () => {
        cpuAtStart = cpuSecondsOf(child.pid);
      },
    );
    const serverCpuSeconds = cpuSecondsOf(child.pid) - cpuAtStart;
    const acknowledged = Number(result.acknowledged);
    const row: LoadResult = {
      label: `HTTP ${server.label}`,
      appendsPerSecond: Number(result.appendsPerSecond),
      p50Ms: Number(result.p50Ms),
      p99Ms: Number(result.p99Ms),
      failed: Number(result.failed),
      serverCpuMsPerAppend: (serverCpuSeconds * 1000) / acknowledged,
      loadCpuCores: Number(result.loadCpuCores),
      syncsPerAppend: Number.NaN,
      loadAverage: loadAverage(),
    };
    process.stderr.write(`round ${run + 1}: ${JSON.stringify(row)}\n`);
    return row;
  } finally {
    await stop(child);
    await cleanup();
  }
}

/** The same workload (same events, threads and concurrency) on the store called in this process. */
async function measureDirect(run: number, root: string): Promise<LoadResult> {
  const { events, close, fileSyncs } = await openDirectStore(run, root);
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
    const syncsBefore = fileSyncs();
    const cpuBefore = process.cpuUsage();
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
    const cpu = process.cpuUsage(cpuBefore);
    const syncs = fileSyncs() - syncsBefore;
    latencies.sort((left, right) => left - right);
    const percentile = (fraction: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))]! * 10) /
      10;
    const row: LoadResult = {
      label: `store called directly${root === repositoryRoot ? '' : ` @${root}`} (same concurrency)`,
      appendsPerSecond: Math.round(latencies.length / seconds),
      p50Ms: percentile(0.5),
      p99Ms: percentile(0.99),
      failed,
      // The bench process is the server here (and its own load generator).
      serverCpuMsPerAppend: (cpu.user + cpu.system) / 1000 / latencies.length,
      loadCpuCores: Number.NaN,
      syncsPerAppend: syncs / latencies.length,
      loadAverage: loadAverage(),
    };
    process.stderr.write(`direct run ${run + 1}: ${JSON.stringify(row)}\n`);
    return row;
  } finally {
    await close();
  }
}

async function openDirectStore(
  run: number,
  root: string,
): Promise<{ events: EventStore; close: () => Promise<void>; fileSyncs: () => number }> {
  if (store === 'embedded') {
    const { EmbeddedEventStore: Store } = (
      root === repositoryRoot
        ? { EmbeddedEventStore }
        : await import(resolve(root, 'packages/embedded/src/index.ts'))
    ) as { EmbeddedEventStore: typeof EmbeddedEventStore };
    const events = new Store({
      dataDir: join(workDirectory, `direct-${run}-${root === repositoryRoot ? 'this' : 'other'}`),
    });
    return { events, close: () => events.close(), fileSyncs: () => events.groupCommit.fileSyncs };
  }
  const schema = uniqueSchemaName('bench_direct');
  const stores = createPostgresStores({ connectionString: postgres!.url, schema });
  await stores.migrate();
  return {
    events: stores.events,
    fileSyncs: () => Number.NaN,
    close: async () => {
      await stores.close();
      await dropSchema(postgres!.url, schema);
    },
  };
}
