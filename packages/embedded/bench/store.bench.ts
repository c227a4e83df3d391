/**
 * Event store throughput of the embedded adapter: `pnpm --filter @compactor/embedded bench`.
 * `--mongo` (or MONGODB_URI being set) also runs MongoDB through the same runStoreBenchmark once
 * the MongoDB adapter wires in its factory below.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStores } from '../src/index.js';
import {
  type BenchmarkRow,
  type BenchmarkStores,
  formatBenchmarkTable,
  runStoreBenchmark,
} from './run-store-benchmark.js';

async function makeEmbeddedStores(): Promise<BenchmarkStores> {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-bench-'));
  let stores = await createEmbeddedStores({ dataDir });
  return {
    events: stores.events,
    reopen: async () => {
      await stores.close();
      stores = await createEmbeddedStores({ dataDir });
      return stores.events;
    },
    cleanup: async () => {
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** MongoDB's factory, for the MongoDB adapter to provide; null until it does. */
async function loadMongoStores(): Promise<(() => Promise<BenchmarkStores>) | null> {
  return null;
}

const rows: BenchmarkRow[] = await runStoreBenchmark('embedded', makeEmbeddedStores);
const wantsMongo = process.argv.includes('--mongo') || process.env.MONGODB_URI !== undefined;
if (wantsMongo) {
  const makeMongoStores = await loadMongoStores();
  if (makeMongoStores) rows.push(...(await runStoreBenchmark('mongodb', makeMongoStores)));
  else console.log('MongoDB requested, but no MongoDB factory is wired into bench/store.bench.ts yet.');
}
console.log(`Node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log(formatBenchmarkTable(rows));
