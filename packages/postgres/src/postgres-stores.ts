import { type Clock, type LifecycleEvent, type Logger, noopLogger, systemClock } from '@compactor/core';
import pg from 'pg';
import { type LifecycleSubscription, subscribeToLifecycleEvents } from './lifecycle-subscription.js';
import { MIGRATIONS } from './migrations/index.js';
import { type MigrationOutcome, migrate } from './migrations/migrate.js';
import { PostgresEventStore } from './postgres-event-store.js';
import { PostgresLifecycleEventLog } from './postgres-lifecycle-log.js';
import { PostgresPlanStore } from './postgres-plan-store.js';
import { PostgresSummaryCache } from './postgres-summary-cache.js';
import { type SqlNames, sqlNames } from './sql-names.js';

/** How to reach PostgreSQL and how the stores behave there. */
export interface PostgresStoresOptions {
  /** e.g. `postgres://compactor@db.internal:5432/compactor`. */
  connectionString: string;
  /** Schema holding every table; several deployments can share a database. @defaultValue `'compactor'` */
  schema?: string;
  /** Connections in the pool. @defaultValue 10 */
  poolSize?: number;
  /** How long to wait for a connection before failing. @defaultValue 10,000 */
  connectionTimeoutMs?: number;
  /** Server-side limit on any one statement. @defaultValue 30,000 */
  statementTimeoutMs?: number;
  /** @defaultValue `systemClock` */
  clock?: Clock;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
  /** Events per `read` page without a limit. @defaultValue 1000 */
  defaultPageSize?: number;
  /** The largest page `read` returns. @defaultValue 10,000 */
  maxPageSize?: number;
}

/** The PostgreSQL stores over one schema, with migrations, lifecycle subscriptions and close. */
export interface PostgresStores {
  events: PostgresEventStore;
  plans: PostgresPlanStore;
  summaries: PostgresSummaryCache;
  lifecycle: PostgresLifecycleEventLog;
  names: SqlNames;
  pool: pg.Pool;
  /** Apply the shipped migrations not yet applied; idempotent, call it once at startup. */
  migrate(): Promise<MigrationOutcome>;
  /** Follow lifecycle events appended by any process on this schema (LISTEN/NOTIFY). */
  subscribeToLifecycle(
    onEvent: (event: LifecycleEvent) => void,
    options?: { tenantId?: string; onError?: (error: Error) => void },
  ): Promise<LifecycleSubscription>;
  /** Ends the pool (open subscriptions are closed by their own `close`). */
  close(): Promise<void>;
}

/**
 * The PostgreSQL adapters of the event, plan, summary-cache and lifecycle ports (artifacts go to S3).
 * The pool connects on first use; call `migrate()` once at startup.
 *
 * @param options - Connection string, schema, pool and timeouts.
 * @returns The stores.
 * @throws ValidationError when `schema` is not a valid schema name.
 */
export function createPostgresStores(options: PostgresStoresOptions): PostgresStores {
  const names = sqlNames(options.schema ?? 'compactor');
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const connection: pg.ClientConfig = {
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    application_name: 'compactor',
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the pool replaces it and the next query reports `unavailable` if the server is still away.
  pool.on('error', (error) => logger.warn({ err: error }, 'idle PostgreSQL connection failed'));
  const lifecycle = new PostgresLifecycleEventLog(pool, names);
  let closed = false;
  return {
    events: new PostgresEventStore({
      pool,
      names,
      clock,
      defaultPageSize: options.defaultPageSize,
      maxPageSize: options.maxPageSize,
    }),
    plans: new PostgresPlanStore({ pool, names, clock }),
    summaries: new PostgresSummaryCache(pool, names),
    lifecycle,
    names,
    pool,
    async migrate() {
      const outcome = await migrate(pool, names, MIGRATIONS);
      logger.info({ schema: names.schema, ...outcome }, 'postgres schema migrated');
      return outcome;
    },
    subscribeToLifecycle(onEvent, subscription = {}) {
      return subscribeToLifecycleEvents({
        connection,
        names,
        log: lifecycle,
        logger,
        onEvent,
        ...subscription,
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
