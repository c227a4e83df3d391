/**
 * Append throughput of one and of two ingest processes on PostgreSQL (a fresh schema each run),
 * with BullMQ on a private redis-server, measured by a separate load process (append-load.ts,
 * autocannon). No workers run: this measures the ingest path (validate, count tokens, append in
 * one transaction, enqueue a debounced check), not compaction.
 *
 *   pnpm --filter @compactor/e2e bench:scale-out [-- --duration 10 --connections 32 --threads 16]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCompactorClient } from '@compactor/client';
import { dropSchema, postgresForTests, uniqueSchemaName } from '@compactor/testkit/postgres';
import { requireRedisForTests } from '@compactor/testkit/redis-server';
import { repositoryRoot } from '../e2e/serve-process.js';
import { freePort, runLoad, stop, waitForHealth } from './bench-processes.js';

const { values } = parseArgs({
  // pnpm passes its own `--` separator through.
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '16' },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const threadCount = Number(values.threads);
const API_KEY = 'bench-key';

const postgres = await postgresForTests();
if (!postgres.available) {
  process.stdout.write(`skipped: no PostgreSQL at ${postgres.url} (${postgres.reason})\n`);
  process.exit(0);
}
const redis = await requireRedisForTests();
const workDirectory = await mkdtemp(join(tmpdir(), 'compactor-bench-scale-'));
const rows: Array<Record<string, unknown>> = [];
try {
  for (const ingestCount of [1, 2]) rows.push(await measure(ingestCount));
} finally {
  await redis.stop();
  await rm(workDirectory, { recursive: true, force: true });
}
process.stdout.write(
  `\nSingle-event appends over ${threadCount} threads, ${connections} connections, ${durationSeconds} s, from a separate autocannon process\n\n`,
);
process.stdout.write('| ingests | appends/s | p50 ms | p99 ms | failed |\n| --- | --- | --- | --- | --- |\n');
for (const row of rows) {
  process.stdout.write(
    `| ${row.ingests} | ${row.appendsPerSecond} | ${row.p50Ms} | ${row.p99Ms} | ${row.failed} |\n`,
  );
}

async function measure(ingestCount: number): Promise<Record<string, unknown>> {
  const schema = uniqueSchemaName('bench');
  const environment = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    COMPACTOR_STORE: 'postgres',
    DATABASE_URL: postgres.url,
    COMPACTOR_POSTGRES_SCHEMA: schema,
    COMPACTOR_QUEUE: 'bullmq',
    REDIS_URL: redis.url,
    COMPACTOR_QUEUE_PREFIX: `{bench-${randomUUID()}}`,
    COMPACTOR_API_KEYS: `${API_KEY}=tenant-bench`,
    HOST: '127.0.0.1',
  };
  const ingests: ChildProcess[] = [];
  try {
    const urls: string[] = [];
    for (let index = 0; index < ingestCount; index += 1) {
      const port = await freePort();
      // Logs go nowhere: the default level still formats them, but no process here parses them.
      ingests.push(
        spawn(process.execPath, ['--import', 'tsx', resolve(repositoryRoot, 'apps/ingest/src/main.ts')], {
          cwd: resolve(repositoryRoot, 'apps/ingest'),
          // Artifacts (unused by appends) stay embedded, in a directory per process.
          env: {
            ...environment,
            PORT: String(port),
            COMPACTOR_DATA_DIR: join(workDirectory, `${schema}-${index}`),
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
      urls.push(`http://127.0.0.1:${port}`);
    }
    await Promise.all(urls.map(waitForHealth));
    const client = createCompactorClient({ baseUrl: urls[0]!, apiKey: API_KEY });
    const threadIds = Array.from({ length: threadCount }, (_, index) => `bench-${index}`);
    for (const threadId of threadIds) {
      await client.createThread({ threadId, model: 'claude-sonnet-4-5', contextWindow: 200_000 });
    }
    const result = await runLoad({ urls, apiKey: API_KEY, threadIds, connections, durationSeconds });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    await Promise.all(ingests.map(stop));
    await dropSchema(postgres.url, schema);
  }
}
