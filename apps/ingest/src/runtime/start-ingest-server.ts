import type { Logger } from '@compactor/core';
import type { Runtime } from '@compactor/runtime';
import { type CompactionWorkerProcess, startWorker } from '@compactor/worker';
import type { FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { buildIngestApp } from '../app/build-ingest-app.js';
import { INGEST_CONTEXT_CACHE_MAX_BYTES } from '../app/ingest-context.js';
import type { IngestConfig } from '../config/ingest-config.js';
import { directoryWriteProbe } from './directory-write-probe.js';

/** The built ingest app, its in-process worker if any, and how to close both with the runtime. */
export interface IngestServer {
  app: FastifyInstance;
  /** The in-process worker, when this process runs one. */
  worker: CompactionWorkerProcess | undefined;
  metrics: Registry;
  /** The byte bounds of every cache the server keeps (its own, the runtime's), summed: its heap budget's bounds (ADR-0425). */
  cacheMaxBytes: number;
  /** Stop taking requests, stop the worker (running checks finish or go back), close the runtime. */
  close(): Promise<void>;
}

/** The runtime and settings the ingest runs on. */
export interface StartIngestServerOptions {
  runtime: Runtime;
  ingest: IngestConfig;
  logger: PinoLogger;
  /**
   * Run the compaction worker in this process. Required with the in-process queue (nobody else
   * can consume it: the all-in-one `compactor serve`); optional with BullMQ, where workers
   * usually run as their own processes.
   * @defaultValue true for the in-process queue, false for BullMQ
   */
  runWorker?: boolean;
}

/**
 * The ingest API over a runtime (stores, queue, engine wired from the environment), plus, in the
 * all-in-one mode, the compaction worker and its sweeper sharing one metrics registry. The app is
 * built, not yet listening.
 *
 * @param options - The runtime, ingest settings, logger and whether to run a worker.
 * @returns The server.
 */
export async function startIngestServer(options: StartIngestServerOptions): Promise<IngestServer> {
  const { runtime, ingest, logger } = options;
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const app = buildIngestApp({
    stores: runtime.stores,
    queue: runtime.queue,
    engine: runtime.engine,
    apiKeys: ingest.apiKeys,
    limits: ingest.limits,
    timeouts: ingest.timeouts,
    ...(usesDataDirectory(runtime) ? { storageWriteProbe: directoryWriteProbe(runtime.config.dataDir) } : {}),
    metrics,
    logger,
    clock: { now: () => new Date() },
    compactionDebounceMs: runtime.config.debounceMs,
    artifactSensitivityFloor: runtime.config.artifactDefaults.sensitivity,
  });
  const runWorker = options.runWorker ?? runtime.config.queue.kind === 'in-process';
  let worker: CompactionWorkerProcess | undefined;
  try {
    if (runWorker) worker = await startWorker({ runtime, metrics, logger: logger as Logger });
  } catch (error) {
    await app.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    worker,
    metrics,
    cacheMaxBytes: INGEST_CONTEXT_CACHE_MAX_BYTES + runtime.cacheMaxBytes,
    close() {
      closing ??= (async () => {
        await app.close();
        await worker?.close();
        await runtime.close();
      })();
      return closing;
    },
  };
}

/** Whether any store of the runtime keeps its data in the local data directory. */
function usesDataDirectory(runtime: Runtime): boolean {
  return runtime.config.store.kind === 'embedded' || runtime.config.artifacts.kind === 'embedded';
}
