/**
 * Event store throughput of the embedded adapter: `pnpm --filter @compactor/embedded bench`
 * (exclusive mode) or `pnpm --filter @compactor/embedded bench --sharing=shared`.
 * The MongoDB adapter runs the same workload from its own bench (`pnpm --filter @compactor/mongo bench`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStores, EMBEDDED_SHARING_MODES, type EmbeddedSharing } from '../src/index.js';
import {
  type BenchmarkRow,
  type BenchmarkStores,
  formatBenchmarkTable,
  runStoreBenchmark,
} from './run-store-benchmark.js';

const sharingArgument = process.argv.find((argument) => argument.startsWith('--sharing='));
const sharing = (sharingArgument?.slice('--sharing='.length) ?? 'exclusive') as EmbeddedSharing;
if (!EMBEDDED_SHARING_MODES.includes(sharing)) {
  throw new Error(`--sharing must be one of ${EMBEDDED_SHARING_MODES.join(', ')}`);
}

async function makeEmbeddedStores(): Promise<BenchmarkStores> {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-bench-'));
  let stores = await createEmbeddedStores({ dataDir, sharing });
  return {
    events: stores.events,
    reopen: async () => {
      await stores.close();
      stores = await createEmbeddedStores({ dataDir, sharing });
      return stores.events;
    },
    cleanup: async () => {
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const adapterName = sharing === 'exclusive' ? 'embedded' : 'embedded (shared)';
const rows: BenchmarkRow[] = await runStoreBenchmark(adapterName, makeEmbeddedStores);
console.log(
  'MongoDB: run `MONGODB_URI=... pnpm --filter @compactor/mongo bench` for the same workload against a replica set.',
);
console.log(`Node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log(formatBenchmarkTable(rows));
