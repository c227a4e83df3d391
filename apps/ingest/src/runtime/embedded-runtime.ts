import { type Logger, systemClock } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine } from '@compactor/engine';
import { type CompactionJobResult, createInProcessCompactionQueue } from '@compactor/queue';
import { createResilientSummarizer } from '@compactor/summarizer';
import type { FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { Registry } from 'prom-client';
import { buildIngestApp } from '../app/build-ingest-app.js';
import { sweepPending } from '../compaction/sweep-pending.js';
import type { IngestConfig } from '../config/ingest-config.js';

export interface EmbeddedIngest {
  app: FastifyInstance;
  /** Stop the sweeper, the app, the worker and the stores, in that order. */
  close(): Promise<void>;
}

/**
 * The all-in-one embedded mode: local-directory stores, the in-process queue and a worker in this
 * process running the compaction engine, plus the pending sweeper on an interval.
 */
export async function startEmbeddedIngest(config: IngestConfig, logger: PinoLogger): Promise<EmbeddedIngest> {
  const coreLogger: Logger = logger;
  const stores = await createEmbeddedStores({ dataDir: config.dataDir, logger: coreLogger });
  const engine = createCompactionEngine({
    events: stores.events,
    plans: stores.plans,
    artifacts: stores.artifacts,
    lifecycle: stores.lifecycle,
    summarizer: createResilientSummarizer({ logger: coreLogger }),
    clock: systemClock,
    logger: coreLogger,
  });
  const queue = createInProcessCompactionQueue({
    defaultDebounceMs: config.compactionDebounceMs,
    logger: coreLogger,
  });
  const worker = await queue.startCompactionWorker({
    logger: coreLogger,
    handler: async (job, context): Promise<CompactionJobResult> => {
      const result = await engine.check(job.tenantId, job.threadId, {
        ...(job.manual ? { manual: job.manual } : {}),
        signal: context.signal,
      });
      if (result.commit.status === 'committed') {
        return {
          status: 'compacted',
          planVersion: result.commit.version,
          tokensFreed: (result.planner?.tokensBefore ?? 0) - (result.planner?.tokensAfter ?? 0),
          summarizerCostUsd: result.planner?.summarizerCostUsd ?? 0,
        };
      }
      if (result.commit.status === 'lost_race') return { status: 'conflict' };
      return { status: result.planner?.status ?? 'skipped' };
    },
  });
  const metrics = new Registry();
  const app = buildIngestApp({
    stores,
    queue,
    engine,
    apiKeys: config.apiKeys,
    limits: config.limits,
    metrics,
    logger,
    clock: systemClock,
    compactionDebounceMs: config.compactionDebounceMs,
  });
  const sweeper = setInterval(() => {
    sweepPending({ events: stores.events, queue, logger: coreLogger, metrics }).catch((error: unknown) =>
      logger.error({ err: error }, 'pending sweep failed'),
    );
  }, config.sweepIntervalMs);
  sweeper.unref();
  return {
    app,
    async close() {
      clearInterval(sweeper);
      await app.close();
      await worker.close();
      await queue.close();
      await stores.close();
    },
  };
}
