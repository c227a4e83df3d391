import {
  type Clock,
  type DeterminismHooks,
  type JobQueue,
  type Logger,
  type Summarizer,
  systemClock,
} from '@compactor/core';
import { DEFAULT_CACHE_BYTES } from '@compactor/embedded';
import {
  type CompactionEngine,
  type CompactionEngineOptions,
  createCompactionEngine,
} from '@compactor/engine';
import type { CompactionWorker } from '@compactor/queue';
import type { RuntimeConfig } from './config/runtime-config.js';
import { openQueue, type StartConsumer } from './queue/open-queue.js';
import {
  artifactStoreProbe,
  checkReadiness,
  eventStoreProbe,
  type Readiness,
} from './readiness/readiness.js';
import { openArtifactStore } from './stores/open-artifact-store.js';
import { openRecordStores } from './stores/open-stores.js';
import type { RuntimeStores } from './stores/runtime-stores.js';
import { buildSummarizer } from './summarizer/build-summarizer.js';

/** What the app supplies besides the configuration. */
export interface CreateRuntimeOptions {
  logger: Logger;
  /** @defaultValue `systemClock` */
  clock?: Clock;
  /** Replaces the configured model summarizer (still cached, still behind the fallbacks). */
  summarizer?: Summarizer;
  /** Part of every summary cache key; bump it to re-summarize after a policy change. @defaultValue `'1'` */
  summaryPolicyVersion?: string;
  /** How long each readiness probe may take. @defaultValue 2,000 */
  readinessTimeoutMs?: number;
  /**
   * `capture_determinism` per tool name (ADR-0193), registered by the app that knows its tools:
   * the worker may then clear replayable results whose source is proven unchanged.
   */
  determinismHooks?: DeterminismHooks;
  /**
   * Called when a summary fails and the thread's policy leaves its history unchanged (the session
   * service's failure callback; a `compaction_failed` lifecycle event records it as well).
   */
  onSummarizationFailure?: CompactionEngineOptions['onSummarizationFailure'];
}

/** The wired adapters, engine and queue an app runs on. */
export interface Runtime {
  config: RuntimeConfig;
  stores: RuntimeStores;
  /** The producer: enqueue compaction checks. */
  queue: JobQueue;
  /** Consume compaction checks (BullMQ or in-process); `close()` stops every consumer started here. */
  startConsumer: StartConsumer;
  summarizer: Summarizer;
  engine: CompactionEngine;
  /**
   * The byte bounds of the caches the runtime keeps, summed: the engine's and, on the embedded store,
   * its event store's (`COMPACTOR_EMBEDDED_CACHE_BYTES`). The servers' heap budget adds their own (ADR-0425).
   */
  cacheMaxBytes: number;
  /** For `/readyz`: can every dependency be reached right now? */
  ready(): Promise<Readiness>;
  /** Consumers, then the producer, then artifacts, then the stores. Idempotent. */
  close(): Promise<void>;
}

/**
 * Wire the adapters the configuration names: stores (embedded directory or MongoDB, indexes
 * ensured), artifacts (embedded or S3), the queue (in-process or BullMQ), the summarizer chain
 * behind the summary cache, and the compaction engine over all of it. Used by the ingest, the
 * worker and the CLI, so they agree on what every variable means.
 *
 * @param config - The parsed configuration (`loadRuntimeConfig`).
 * @param options - Logger, clock, summarizer override and timeouts.
 * @returns The runtime; close it when done.
 * @throws CompactorError when a store cannot be opened (e.g. `unavailable` for a data directory
 *   another process holds, or a server that cannot be reached).
 */
export async function createRuntime(config: RuntimeConfig, options: CreateRuntimeOptions): Promise<Runtime> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const records = await openRecordStores(config, clock, logger);
  let artifacts: Awaited<ReturnType<typeof openArtifactStore>>;
  try {
    artifacts = await openArtifactStore(config, records.value.embedded, clock, logger);
  } catch (error) {
    await records.close();
    throw error;
  }
  const queue = openQueue(config, logger, (tenantId, threadId) =>
    records.value.events.setCompactionPending(tenantId, threadId, true),
  );
  const stores: RuntimeStores = {
    events: records.value.events,
    plans: records.value.plans,
    summaries: records.value.summaries,
    artifacts: artifacts.value,
    lifecycle: records.value.lifecycle,
  };
  const summarizer = buildSummarizer({
    config: config.summarizer,
    cache: stores.summaries,
    policyVersion: options.summaryPolicyVersion ?? '1',
    logger,
    ...(options.summarizer ? { primary: options.summarizer } : {}),
  });
  const engine = createCompactionEngine({
    ...stores,
    summarizer,
    clock,
    logger,
    artifactDefaults: config.artifactDefaults,
    ...(options.determinismHooks ? { determinismHooks: options.determinismHooks } : {}),
    autoCompact: config.autoCompact,
    ...(options.onSummarizationFailure ? { onSummarizationFailure: options.onSummarizationFailure } : {}),
  });

  const consumers: CompactionWorker[] = [];
  const startConsumer: StartConsumer = async (handler, consumerOptions) => {
    const consumer = await queue.startConsumer(handler, consumerOptions);
    consumers.push(consumer);
    return consumer;
  };

  let closing: Promise<void> | undefined;
  const closeAll = async () => {
    const failures: unknown[] = [];
    const step = async (name: string, close: () => Promise<void>) => {
      try {
        await close();
      } catch (error) {
        failures.push(error);
        logger.error({ err: error, step: name }, 'runtime close step failed');
      }
    };
    await step('consumers', async () => {
      await Promise.all(consumers.map((consumer) => consumer.close()));
    });
    await step('queue', () => queue.close());
    await step('artifacts', () => artifacts.close());
    await step('stores', () => records.close());
    if (failures.length > 0) throw new AggregateError(failures, 'the runtime did not close cleanly');
  };

  logger.info(
    {
      store: config.store.kind,
      artifacts: config.artifacts.kind,
      queue: config.queue.kind,
      summarizer: config.summarizer.kind,
    },
    'runtime ready',
  );
  return {
    config,
    stores,
    queue: queue.queue,
    startConsumer,
    summarizer,
    engine,
    cacheMaxBytes:
      engine.cacheMaxBytes +
      (config.store.kind === 'embedded' ? (config.embeddedCacheBytes ?? DEFAULT_CACHE_BYTES) : 0),
    ready: () =>
      checkReadiness(
        {
          store: eventStoreProbe(stores.events),
          artifacts: artifactStoreProbe(stores.artifacts),
          queue: queue.probe,
        },
        options.readinessTimeoutMs ?? 2_000,
      ),
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}
