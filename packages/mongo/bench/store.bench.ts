/**
 * MongoDB event store throughput, through the same runStoreBenchmark as the embedded store:
 *   MONGODB_URI=mongodb://127.0.0.1:27017/?replicaSet=rs0 pnpm --filter @compactor/mongo bench
 * Without MONGODB_URI it says it was skipped and exits 0 (there is no MongoDB on the build machines).
 */
import { randomUUID } from 'node:crypto';
// The runner lives with the embedded bench (one definition of the workload for every adapter).
import { type BenchmarkStores, formatBenchmarkTable, runStoreBenchmark } from '@compactor/embedded/bench';
import { MongoClient } from 'mongodb';
import { createMongoStores } from '../src/index.js';

const COMMAND = 'MONGODB_URI=mongodb://127.0.0.1:27017/?replicaSet=rs0 pnpm --filter @compactor/mongo bench';
const uri = process.env.MONGODB_URI;

async function makeMongoStores(mongoUri: string): Promise<BenchmarkStores> {
  const client = new MongoClient(mongoUri);
  await client.connect();
  const dbName = `compactor_bench_${randomUUID().slice(0, 8)}`;
  const stores = createMongoStores({ client, dbName });
  await stores.ensureIndexes();
  return {
    events: stores.events,
    cleanup: async () => {
      await client.db(dbName).dropDatabase();
      await client.close();
    },
  };
}

if (uri === undefined) {
  console.log(`MongoDB benchmark SKIPPED: MONGODB_URI is not set. Run it with:\n  ${COMMAND}`);
} else {
  const rows = await runStoreBenchmark('mongodb', () => makeMongoStores(uri));
  // Hosts only: credentials in the URI are never printed.
  const hosts = uri
    .replace(/^mongodb(\+srv)?:\/\//, '')
    .replace(/^[^@/]*@/, '')
    .split(/[/?]/)[0];
  console.log(`Node ${process.version}, ${process.platform}/${process.arch}, MongoDB at ${hosts}\n`);
  console.log(formatBenchmarkTable(rows));
}
