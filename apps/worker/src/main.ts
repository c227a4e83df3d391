/**
 * The worker process: `pnpm --filter @compactor/worker start`. Configuration comes from the
 * environment, read once here (see packages/runtime/README.md and infra/.env.example).
 * SIGTERM or SIGINT: stop taking checks, let running ones finish or go back to the queue, close
 * everything, exit 0. A second signal exits at once (1).
 */

import { ShutdownDeadline } from '@compactor/queue';
import { createRuntime, describeRuntimeConfig, loadRuntimeConfig } from '@compactor/runtime';
import { pino } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { applyHeapCompaction } from './heap/heap-compaction.js';
import { startWorkerHttpServer, type WorkerHttpServer } from './http/worker-http-server.js';
import { startWorker } from './start-worker.js';
import { loadWorkerConfig } from './worker-config.js';

let config: ReturnType<typeof loadRuntimeConfig>;
let workerConfig: ReturnType<typeof loadWorkerConfig>;
try {
  config = loadRuntimeConfig();
  workerConfig = loadWorkerConfig();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

// Before the runtime allocates anything: RSS follows the heap only if full collections compact (ADR-0355, ADR-0395).
const heap = applyHeapCompaction(workerConfig.heapCompaction);
const logger = pino({ level: config.logLevel, name: 'compactor-worker' });
logger.info(
  {
    config: describeRuntimeConfig(config),
    heapCompaction: workerConfig.heapCompaction.mode,
    heapCompactionIntervalMs: workerConfig.heapCompaction.intervalMs,
    v8Flags: heap.v8Flags,
  },
  'starting compaction worker',
);
heap.onEvent((event) => logger.info(event, 'heap compaction'));

/**
 * Of the grace period, what is kept for closing the HTTP server and the runtime (the producer's
 * connection, the stores) once the worker has closed; the worker's own steps end this much
 * before the deadline (ADR-0100). At most a tenth of the grace period.
 */
const RUNTIME_CLOSE_RESERVE_MS = 250;

let stopping = false;
let stop: (deadline: ShutdownDeadline) => Promise<void> = async () => {};
// In-process mode holds no socket or timer of its own: this keeps the process up until a signal.
const keepAlive = setInterval(() => {}, 2 ** 30);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting for running checks');
      process.exit(1);
    }
    stopping = true;
    clearInterval(keepAlive);
    // The grace period is the whole shutdown: every step is budgeted from this deadline, and at
    // the deadline the process exits whatever is still closing (ADR-0100).
    const graceMs = config.worker.shutdownTimeoutMs;
    const deadline = ShutdownDeadline.after(graceMs);
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown did not finish within the grace period; exiting');
      process.exit(1);
    }, graceMs).unref();
    logger.info({ signal }, 'shutting down: no new checks; running ones finish or go back to the queue');
    stop(deadline).then(
      () => {
        logger.info({}, 'compaction worker stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

try {
  const runtime = await createRuntime(config, { logger });
  stop = () => runtime.close();
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const worker = await startWorker({ runtime, metrics, logger });
  let http: WorkerHttpServer | undefined;
  // Whatever has started by the time a signal arrives is what gets closed, in this order.
  stop = async (deadline) => {
    await worker.close(deadline.earlier(Math.min(RUNTIME_CLOSE_RESERVE_MS, deadline.remainingMs() / 10)));
    await http?.close();
    await runtime.close();
  };
  if (workerConfig.metricsPort !== undefined) {
    http = await startWorkerHttpServer({
      port: workerConfig.metricsPort,
      host: workerConfig.metricsHost,
      metrics,
      ready: runtime.ready,
      logger,
    });
  }
  // Started, its caches still empty: what the heap holds now is the baseline its budget counts from (ADR-0425).
  logger.info(heap.setBudget(runtime.cacheMaxBytes), 'heap budget');
  logger.info({ concurrency: config.worker.concurrency }, 'compaction worker ready');
} catch (error) {
  logger.fatal({ err: error }, 'compaction worker could not start');
  process.exit(1);
}
