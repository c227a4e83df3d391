import type { Collection, Db, IndexDescription } from 'mongodb';
import type { EventDocument } from './event-documents.js';
import type {
  LifecycleEventDocument,
  LifecycleSequenceDocument,
  PlanDocument,
  PlanHeadDocument,
  SummaryDocument,
  ThreadDocument,
} from './mongo-documents.js';

/** The collections the MongoDB stores use. */
export interface MongoCollections {
  events: Collection<EventDocument>;
  threads: Collection<ThreadDocument>;
  plans: Collection<PlanDocument>;
  planHeads: Collection<PlanHeadDocument>;
  summaries: Collection<SummaryDocument>;
  lifecycleEvents: Collection<LifecycleEventDocument>;
  lifecycleSequences: Collection<LifecycleSequenceDocument>;
}

/**
 * Handles on the stores' collections (nothing is created; see {@link ensureIndexes}).
 *
 * @param db - The database.
 * @param prefix - Prepended to every collection name.
 * @returns The collections.
 */
export function openCollections(db: Db, prefix: string): MongoCollections {
  return {
    events: db.collection<EventDocument>(`${prefix}events`),
    threads: db.collection<ThreadDocument>(`${prefix}threads`),
    plans: db.collection<PlanDocument>(`${prefix}plans`),
    planHeads: db.collection<PlanHeadDocument>(`${prefix}planHeads`),
    summaries: db.collection<SummaryDocument>(`${prefix}summaries`),
    lifecycleEvents: db.collection<LifecycleEventDocument>(`${prefix}lifecycleEvents`),
    lifecycleSequences: db.collection<LifecycleSequenceDocument>(`${prefix}lifecycleSequences`),
  };
}

/**
 * Every index the stores rely on. Names are MongoDB's defaults (`field_1_field_1`), which the
 * duplicate-key mapping can read back from an error message when the server omits `keyPattern`.
 */
export const INDEXES: { [name in keyof MongoCollections]: IndexDescription[] } = {
  events: [
    { key: { tenantId: 1, threadId: 1, seq: 1 }, unique: true },
    { key: { tenantId: 1, threadId: 1, eventId: 1 }, unique: true },
    // A message id is used once per thread; only message events carry one.
    {
      key: { tenantId: 1, threadId: 1, 'message.id': 1 },
      unique: true,
      partialFilterExpression: { type: 'message.appended' },
    },
  ],
  threads: [
    { key: { tenantId: 1, threadId: 1 }, unique: true },
    // Only pending threads are indexed: the sweeper's query stays small however many threads exist.
    { key: { compactionPending: 1 }, partialFilterExpression: { compactionPending: true } },
  ],
  plans: [{ key: { tenantId: 1, threadId: 1, version: 1 }, unique: true }],
  planHeads: [{ key: { tenantId: 1, threadId: 1 }, unique: true }],
  summaries: [{ key: { tenantId: 1, key: 1 }, unique: true }],
  lifecycleEvents: [{ key: { tenantId: 1, threadId: 1, seq: 1 }, unique: true }],
  lifecycleSequences: [{ key: { tenantId: 1, threadId: 1 }, unique: true }],
};

/**
 * Create the collections and indexes; safe to call on every start (createIndexes with an
 * identical specification is a no-op). Collections are created here too, because a transaction
 * cannot create a collection on servers before 4.4 or across shards.
 *
 * @param db - The database.
 * @param collections - The collections from {@link openCollections}.
 */
export async function ensureIndexes(db: Db, collections: MongoCollections): Promise<void> {
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of Object.keys(INDEXES) as (keyof MongoCollections)[]) {
    const collection = collections[name];
    if (!existing.has(collection.collectionName)) {
      await db.createCollection(collection.collectionName).catch(ignoreAlreadyExists);
    }
    await collection.createIndexes(INDEXES[name]);
  }
}

/** Code 48 (NamespaceExists): another process created it first. */
function ignoreAlreadyExists(error: unknown): void {
  if ((error as { code?: unknown } | null)?.code === 48) return;
  throw error;
}
