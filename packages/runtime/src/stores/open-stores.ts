import type { Clock, EventStore, LifecycleEventLog, Logger, PlanStore, SummaryCache } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import type { RuntimeConfig } from '../config/runtime-config.js';
import type { OpenedResource } from './runtime-stores.js';

export interface RecordStores {
  events: EventStore;
  plans: PlanStore;
  summaries: SummaryCache;
  lifecycle: LifecycleEventLog;
  /** The embedded stores when the store is embedded: their artifact store is reused. */
  embedded: EmbeddedStores | undefined;
}

/**
 * The event, plan, summary-cache and lifecycle stores. Embedded: one local directory, locked to
 * this process or shared with other processes (`COMPACTOR_EMBEDDED_SHARING`).
 * Mongo and PostgreSQL: the adapter is loaded only when configured, and its indexes (Mongo) or its
 * shipped migrations (PostgreSQL) are applied before use.
 */
export async function openRecordStores(
  config: RuntimeConfig,
  clock: Clock,
  logger: Logger,
): Promise<OpenedResource<RecordStores>> {
  if (config.store.kind === 'embedded') {
    const embedded = await createEmbeddedStores({
      dataDir: config.dataDir,
      sharing: config.embeddedSharing ?? 'exclusive',
      ...(config.embeddedLeaseMs === undefined ? {} : { leaseMs: config.embeddedLeaseMs }),
      ...(config.embeddedCacheBytes === undefined ? {} : { cacheBytes: config.embeddedCacheBytes }),
      clock,
      logger,
    });
    return {
      value: {
        events: embedded.events,
        plans: embedded.plans,
        summaries: embedded.summaries,
        lifecycle: embedded.lifecycle,
        embedded,
      },
      close: () => embedded.close(),
    };
  }
  if (config.store.kind === 'postgres') return openPostgresStores(config.store, clock, logger);
  const { createMongoStores } = await import('@compactor/mongo');
  const mongo = createMongoStores({ uri: config.store.uri, dbName: config.store.dbName, clock, logger });
  try {
    await mongo.ensureIndexes();
  } catch (error) {
    await mongo.close().catch(() => {});
    throw error;
  }
  return {
    value: {
      events: mongo.events,
      plans: mongo.plans,
      summaries: mongo.summaries,
      lifecycle: mongo.lifecycle,
      embedded: undefined,
    },
    close: () => mongo.close(),
  };
}

async function openPostgresStores(
  store: Extract<RuntimeConfig['store'], { kind: 'postgres' }>,
  clock: Clock,
  logger: Logger,
): Promise<OpenedResource<RecordStores>> {
  const { createPostgresStores } = await import('@compactor/postgres');
  const postgres = createPostgresStores({
    connectionString: store.url,
    schema: store.schema,
    poolSize: store.poolSize,
    clock,
    logger,
  });
  try {
    await postgres.migrate();
  } catch (error) {
    await postgres.close().catch(() => {});
    throw error;
  }
  return {
    value: {
      events: postgres.events,
      plans: postgres.plans,
      summaries: postgres.summaries,
      lifecycle: postgres.lifecycle,
      embedded: undefined,
    },
    close: () => postgres.close(),
  };
}
