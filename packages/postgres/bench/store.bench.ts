/**
 * PostgreSQL event store throughput, through the same runStoreBenchmark as the embedded and
 * MongoDB stores, on a fresh schema (dropped afterwards):
 *   pnpm --filter @compactor/postgres bench          # DATABASE_URL or the local test database
 * Without a PostgreSQL answering it says it was skipped and exits 0.
 */
// The runner lives with the embedded bench (one definition of the workload for every adapter).
import { type BenchmarkStores, formatBenchmarkTable, runStoreBenchmark } from '@compactor/embedded/bench';
import { dropSchema, postgresForTests, uniqueSchemaName } from '@compactor/testkit/postgres';
import { createPostgresStores } from '../src/index.js';

async function makePostgresStores(url: string): Promise<BenchmarkStores> {
  const schema = uniqueSchemaName('bench');
  const stores = createPostgresStores({ connectionString: url, schema });
  await stores.migrate();
  return {
    events: stores.events,
    cleanup: async () => {
      await stores.close();
      await dropSchema(url, schema);
    },
  };
}

const postgres = await postgresForTests();
if (!postgres.available) {
  console.log(`PostgreSQL benchmark SKIPPED: nothing answers at ${postgres.url} (${postgres.reason})`);
} else {
  const rows = await runStoreBenchmark('postgres', () => makePostgresStores(postgres.url));
  // Host and database only: credentials in the URL are never printed.
  const url = new URL(postgres.url);
  console.log(
    `Node ${process.version}, ${process.platform}/${process.arch}, PostgreSQL at ${url.host}${url.pathname}\n`,
  );
  console.log(formatBenchmarkTable(rows));
}
