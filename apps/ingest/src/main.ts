/**
 * The ingest process: `pnpm --filter @compactor/ingest start`. Its own settings (PORT, HOST,
 * COMPACTOR_API_KEYS, limits) and the runtime's (stores, queue, summarizer: packages/runtime) are
 * read once, here. With the in-process queue this process also runs the compaction worker.
 */
import { createRuntime, loadRuntimeConfig } from '@compactor/runtime';
import { applyHeapCompaction } from '@compactor/worker';
import { pino } from 'pino';
import { loadIngestConfig } from './config/ingest-config.js';
import { startIngestServer } from './runtime/start-ingest-server.js';

const runtimeConfig = loadRuntimeConfig();
const ingestConfig = loadIngestConfig();
// Before the runtime allocates anything: RSS follows the heap only if full collections compact (ADR-0355, ADR-0395).
const heap = applyHeapCompaction(ingestConfig.heapCompaction);
const logger = pino({ level: runtimeConfig.logLevel, name: 'compactor-ingest' });
logger.info(
  {
    heapCompaction: ingestConfig.heapCompaction.mode,
    heapCompactionIntervalMs: ingestConfig.heapCompaction.intervalMs,
    v8Flags: heap.v8Flags,
  },
  'starting ingest',
);
heap.onEvent((event) => logger.info(event, 'heap compaction'));
const runtime = await createRuntime(runtimeConfig, { logger });
const server = await startIngestServer({ runtime, ingest: ingestConfig, logger });
await server.app.listen({ port: ingestConfig.port, host: ingestConfig.host });
// Ready, nothing served yet: what the heap holds now is the baseline its budget counts from (ADR-0425).
logger.info(heap.setBudget(server.cacheMaxBytes), 'heap budget');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
