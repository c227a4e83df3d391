import { type Clock, type Logger, noopLogger, systemClock } from '@compactor/core';
import {
  MongoClient,
  type MongoClientOptions,
  ReadConcern,
  type ReadConcernLevel,
  type WriteConcernSettings,
} from 'mongodb';
import { ensureIndexes, type MongoCollections, openCollections } from './mongo-collections.js';
import { MongoEventStore } from './mongo-event-store.js';
import { MongoLifecycleEventLog } from './mongo-lifecycle-log.js';
import { MongoPlanStore } from './mongo-plan-store.js';
import { MongoSummaryCache } from './mongo-summary-cache.js';

/** How to reach MongoDB and how the stores behave there. */
export interface MongoStoresOptions {
  /** A connected (or connectable) client you own; `close()` then leaves it open. */
  client?: MongoClient;
  /** Or a connection string: the stores create, connect and close their own client. */
  uri?: string;
  /** Extra driver options for a client created from `uri` (pool size, TLS, timeouts, ...). */
  clientOptions?: MongoClientOptions;
  dbName: string;
  /** An acknowledged append survives a primary failover. @defaultValue `{ w: 'majority' }` */
  writeConcern?: WriteConcernSettings;
  /** Reads never see writes a failover could roll back. @defaultValue `'majority'` */
  readConcern?: ReadConcernLevel;
  /** Prepended to every collection name, to share a database. @defaultValue `''` */
  collectionPrefix?: string;
  /** @defaultValue `systemClock` */
  clock?: Clock;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
  /** Events per `read` page without a limit. @defaultValue 1000 */
  defaultPageSize?: number;
  /** The largest page `read` returns. @defaultValue 10,000 */
  maxPageSize?: number;
}

/** The MongoDB stores over one database, with index set-up and close. */
export interface MongoStores {
  events: MongoEventStore;
  plans: MongoPlanStore;
  summaries: MongoSummaryCache;
  lifecycle: MongoLifecycleEventLog;
  collections: MongoCollections;
  /** Create collections and indexes; idempotent, call it once at startup. */
  ensureIndexes(): Promise<void>;
  /** Closes the client when the stores created it from `uri`. */
  close(): Promise<void>;
}

const DEFAULT_WRITE_CONCERN: WriteConcernSettings = { w: 'majority' };

/**
 * The MongoDB adapters of the event, plan, summary-cache and lifecycle ports (artifacts go to S3).
 * Nothing is sent to the server until first use; call `ensureIndexes()` once at startup.
 *
 * @param options - A client or a URI, the database and the concerns.
 * @returns The stores.
 * @throws TypeError when neither `client` nor `uri` is given.
 */
export function createMongoStores(options: MongoStoresOptions): MongoStores {
  const ownsClient = options.client === undefined;
  const client = options.client ?? clientFromUri(options);
  const writeConcern = options.writeConcern ?? DEFAULT_WRITE_CONCERN;
  const db = client.db(options.dbName, {
    writeConcern,
    readConcern: new ReadConcern(options.readConcern ?? 'majority'),
  });
  const collections = openCollections(db, options.collectionPrefix ?? '');
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  return {
    events: new MongoEventStore({
      client,
      collections,
      writeConcern,
      clock,
      defaultPageSize: options.defaultPageSize,
      maxPageSize: options.maxPageSize,
    }),
    plans: new MongoPlanStore({ client, collections, writeConcern, clock }),
    summaries: new MongoSummaryCache(collections),
    lifecycle: new MongoLifecycleEventLog(collections),
    collections,
    async ensureIndexes() {
      await ensureIndexes(db, collections);
      logger.debug({ dbName: options.dbName }, 'mongo indexes ensured');
    },
    async close() {
      if (ownsClient) await client.close();
    },
  };
}

function clientFromUri(options: MongoStoresOptions): MongoClient {
  if (options.uri === undefined) throw new TypeError('createMongoStores needs a client or a uri');
  // retryWrites is the driver default; stated so the choice is visible (appends are idempotent anyway).
  return new MongoClient(options.uri, { retryWrites: true, ...options.clientOptions });
}
