import {
  type AppendOptions,
  type AppendResult,
  type Clock,
  ConcurrencyError,
  checkExpectedVersion,
  checkThreadRules,
  type EventInput,
  type EventStore,
  type FreshEvent,
  IdempotencyConflictError,
  type ListThreadsOptions,
  messageIdsOf,
  NotFoundError,
  parseEventBatch,
  type ReadOptions,
  type ReadResult,
  requireIds,
  type StoredEvent,
  type ThreadMetadata,
  ValidationError,
} from '@compactor/core';
import type { ClientSession, MongoClient, WriteConcernSettings } from 'mongodb';
import { duplicateKeyInfo } from './duplicate-key-error.js';
import {
  documentToEvent,
  type EventDocument,
  eventContentHash,
  eventToDocument,
  eventTotals,
  messageIdsOfDocuments,
  storedEventFromInput,
} from './event-documents.js';
import type { MongoCollections } from './mongo-collections.js';
import { type ThreadDocument, threadDocumentToMetadata } from './mongo-documents.js';
import { mapMongoError } from './mongo-error-mapping.js';
import { decodeThreadCursor, encodeThreadCursor } from './thread-cursor.js';
import { inTransaction } from './transactions.js';

/** What a MongoDB event store needs. */
export interface MongoEventStoreOptions {
  client: MongoClient;
  collections: MongoCollections;
  writeConcern: WriteConcernSettings;
  clock: Clock;
  /** Events per `read` page when the caller gives no limit. @defaultValue 1000 */
  defaultPageSize?: number;
  /** Largest page `read` returns. @defaultValue 10,000 */
  maxPageSize?: number;
  /** How often an append re-reads and retries after a racing writer's duplicate key. @defaultValue 5 */
  maxAppendAttempts?: number;
}

const NO_ID = { _id: 0 } as const;
const NO_ID_NO_HASH = { _id: 0, contentHash: 0 } as const;

/**
 * The event log in MongoDB: one document per event, a `threads` document per thread holding
 * the version and totals. A batch is one transaction: read the thread and any already stored
 * event ids, decide (duplicate, conflict, version mismatch), insert the new events and move the
 * thread's version with a compare on the version it read.
 */
export class MongoEventStore implements EventStore {
  private readonly defaultPageSize: number;
  private readonly maxPageSize: number;
  private readonly maxAppendAttempts: number;

  /** @param options - Client, collections, write concern, clock and page sizes. */
  constructor(private readonly options: MongoEventStoreOptions) {
    this.defaultPageSize = options.defaultPageSize ?? 1000;
    this.maxPageSize = options.maxPageSize ?? 10_000;
    this.maxAppendAttempts = options.maxAppendAttempts ?? 5;
  }

  async append(
    tenantId: string,
    threadId: string,
    events: EventInput[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    requireIds({ tenantId, threadId });
    const inputs = parseEventBatch(events);
    const expectedVersion = checkExpectedVersion(options.expectedVersion);
    const batch = inputs.map((input) => ({ input, contentHash: eventContentHash(input) }));
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await inTransaction(this.options.client, this.options.writeConcern, (session) =>
          this.appendInTransaction(session, tenantId, threadId, batch, expectedVersion),
        );
      } catch (error) {
        // A racing writer took the same seq, event id or new thread between our read and our write.
        // Never leak the raw E11000: the next attempt re-reads and decides (duplicate, conflict,
        // version mismatch); when attempts run out it is a concurrency error.
        if (duplicateKeyInfo(error) === null) throw mapMongoError(error, 'append');
        if (attempt >= this.maxAppendAttempts) {
          const actual = (await this.getThread(tenantId, threadId))?.version ?? 0;
          throw new ConcurrencyError(`thread ${threadId}`, options.expectedVersion ?? actual, actual);
        }
      }
    }
  }

  private async appendInTransaction(
    session: ClientSession,
    tenantId: string,
    threadId: string,
    batch: { input: EventInput; contentHash: string }[],
    expectedVersion: number | undefined,
  ): Promise<AppendResult> {
    const { events, threads } = this.options.collections;
    const thread = await threads.findOne({ tenantId, threadId }, { session, projection: NO_ID });
    const alreadyStored = new Map<string, EventDocument>();
    if (thread !== null) {
      const ids = batch.map(({ input }) => input.eventId);
      const found = events.find(
        { tenantId, threadId, eventId: { $in: ids } },
        { session, projection: NO_ID },
      );
      for (const document of await found.toArray()) alreadyStored.set(document.eventId, document);
    }
    for (const { input, contentHash } of batch) {
      const stored = alreadyStored.get(input.eventId);
      if (stored !== undefined && stored.contentHash !== contentHash) {
        throw new IdempotencyConflictError(input.eventId);
      }
    }
    const currentVersion = thread?.version ?? 0;
    const fresh: FreshEvent[] = [];
    batch.forEach(({ input }, position) => {
      if (!alreadyStored.has(input.eventId)) fresh.push({ input, position });
    });
    if (fresh.length === 0) {
      // A retry of a batch already stored: the original events, whatever the expected version.
      const original = batch.map(({ input }) => documentToEvent(alreadyStored.get(input.eventId)!));
      return { version: currentVersion, events: original, duplicates: batch.length };
    }
    if (expectedVersion !== undefined && expectedVersion !== currentVersion) {
      throw new ConcurrencyError(`thread ${threadId}`, expectedVersion, currentVersion);
    }
    checkThreadRules(
      thread !== null,
      fresh,
      await this.storedMessageIds(session, thread !== null, tenantId, threadId, fresh),
    );
    const now = this.options.clock.now().toISOString();
    const written = new Map<string, StoredEvent>();
    const documents = fresh.map(({ input, position }, index) => {
      const seq = currentVersion + index + 1;
      const event = storedEventFromInput(input, { tenantId, threadId, seq, timestamp: now });
      written.set(input.eventId, event);
      return eventToDocument(event, batch[position]!.contentHash);
    });
    await events.insertMany(documents, { session, ordered: true, ignoreUndefined: true });
    const newVersion = currentVersion + fresh.length;
    await this.moveThread(session, thread, documents, newVersion);
    const stored = batch.map(
      ({ input }) => written.get(input.eventId) ?? documentToEvent(alreadyStored.get(input.eventId)!),
    );
    return { version: newVersion, events: stored, duplicates: batch.length - fresh.length };
  }

  /** Which of the batch's message ids the thread already holds (a unique index backs this up). */
  private async storedMessageIds(
    session: ClientSession,
    threadExists: boolean,
    tenantId: string,
    threadId: string,
    fresh: readonly FreshEvent[],
  ): Promise<Set<string>> {
    const messageIds = messageIdsOf(fresh);
    if (messageIds.length === 0 || !threadExists) return new Set();
    const found = await this.options.collections.events
      .find(
        { tenantId, threadId, type: 'message.appended', 'message.id': { $in: messageIds } },
        { session, projection: { _id: 0, 'message.id': 1 } },
      )
      .toArray();
    return messageIdsOfDocuments(found);
  }

  private async moveThread(
    session: ClientSession,
    thread: ThreadDocument | null,
    written: EventDocument[],
    newVersion: number,
  ): Promise<void> {
    const { threads } = this.options.collections;
    let messageCount = 0;
    let messageTokens = 0;
    for (const event of written) {
      const totals = eventTotals(event);
      messageCount += totals.messageCount;
      messageTokens += totals.messageTokens;
    }
    const first = written[0]!;
    // updatedAt is the last event's timestamp (supplied or set), createdAt the thread.created one's.
    const updatedAt = written.at(-1)!.timestamp;
    if (thread === null) {
      if (first.type !== 'thread.created')
        throw new ValidationError('a new thread must start with thread.created');
      const created: ThreadDocument = {
        tenantId: first.tenantId,
        threadId: first.threadId,
        model: first.model,
        contextWindow: first.contextWindow,
        version: newVersion,
        eventCount: written.length,
        messageCount,
        messageTokens,
        createdAt: first.timestamp,
        updatedAt,
        compactionPending: false,
      };
      // A racing creator makes this an E11000 on {tenantId, threadId}: handled by the caller's retry.
      await threads.insertOne(created, { session });
      return;
    }
    const moved = await threads.updateOne(
      { tenantId: thread.tenantId, threadId: thread.threadId, version: thread.version },
      {
        $set: { version: newVersion, updatedAt },
        $inc: { eventCount: written.length, messageCount, messageTokens },
      },
      { session },
    );
    if (moved.matchedCount !== 1) {
      // Snapshot isolation makes this a write conflict first; kept as a guard should that ever change.
      throw new ConcurrencyError(`thread ${thread.threadId}`, thread.version, newVersion);
    }
  }

  async read(tenantId: string, threadId: string, options: ReadOptions = {}): Promise<ReadResult> {
    requireIds({ tenantId, threadId });
    const fromSeq = options.fromSeq ?? 1;
    const limit = options.limit ?? this.defaultPageSize;
    if (!Number.isInteger(fromSeq) || fromSeq < 1) {
      throw new ValidationError('invalid fromSeq', [{ path: 'fromSeq', message: 'must be an integer ≥ 1' }]);
    }
    if (!Number.isInteger(limit) || limit < 1) {
      throw new ValidationError('invalid limit', [{ path: 'limit', message: 'must be an integer ≥ 1' }]);
    }
    const pageSize = Math.min(limit, this.maxPageSize);
    try {
      const thread = await this.options.collections.threads.findOne(
        { tenantId, threadId },
        { projection: { _id: 0, version: 1 } },
      );
      if (thread === null) throw new NotFoundError('thread', threadId);
      const documents = await this.options.collections.events
        .find({ tenantId, threadId, seq: { $gte: fromSeq } }, { projection: NO_ID_NO_HASH })
        .sort({ seq: 1 })
        .limit(pageSize)
        .toArray();
      const events = documents.map((document) => documentToEvent(document));
      const lastSeq = events.at(-1)?.seq;
      const more = events.length === pageSize && lastSeq !== undefined && lastSeq < thread.version;
      return { events, nextSeq: more ? lastSeq + 1 : null };
    } catch (error) {
      throw mapMongoError(error, 'read');
    }
  }

  /**
   * The newest `count` events of a thread, oldest first: a backward walk of the
   * (tenantId, threadId, seq) index that reads `count` documents however long the thread is.
   */
  async readNewest(tenantId: string, threadId: string, count: number): Promise<StoredEvent[]> {
    requireIds({ tenantId, threadId });
    if (!Number.isInteger(count) || count < 1) {
      throw new ValidationError('invalid count', [{ path: 'count', message: 'must be an integer ≥ 1' }]);
    }
    try {
      const thread = await this.options.collections.threads.findOne(
        { tenantId, threadId },
        { projection: { _id: 0, version: 1 } },
      );
      if (thread === null) throw new NotFoundError('thread', threadId);
      const newestFirst = await this.options.collections.events
        .find({ tenantId, threadId }, { projection: NO_ID_NO_HASH })
        .sort({ seq: -1 })
        .limit(Math.min(count, this.maxPageSize))
        .toArray();
      return newestFirst.reverse().map((document) => documentToEvent(document));
    } catch (error) {
      throw mapMongoError(error, 'readNewest');
    }
  }

  async readAll(tenantId: string, threadId: string): Promise<StoredEvent[]> {
    const all: StoredEvent[] = [];
    let fromSeq: number | null = 1;
    while (fromSeq !== null) {
      const page: ReadResult = await this.read(tenantId, threadId, { fromSeq, limit: this.maxPageSize });
      all.push(...page.events);
      fromSeq = page.nextSeq;
    }
    return all;
  }

  async getThread(tenantId: string, threadId: string): Promise<ThreadMetadata | null> {
    requireIds({ tenantId, threadId });
    try {
      const thread = await this.options.collections.threads.findOne(
        { tenantId, threadId },
        { projection: NO_ID },
      );
      return thread === null ? null : threadDocumentToMetadata(thread);
    } catch (error) {
      throw mapMongoError(error, 'getThread');
    }
  }

  async listThreads(
    tenantId: string,
    options: ListThreadsOptions = {},
  ): Promise<{ threads: ThreadMetadata[]; nextCursor: string | null }> {
    requireIds({ tenantId });
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    const filter =
      options.cursor === undefined
        ? { tenantId }
        : { tenantId, threadId: { $gt: decodeThreadCursor(options.cursor) } };
    try {
      const documents = await this.options.collections.threads
        .find(filter, { projection: NO_ID })
        .sort({ threadId: 1 })
        .limit(limit + 1)
        .toArray();
      const page = documents.slice(0, limit).map(threadDocumentToMetadata);
      const last = page.at(-1);
      const nextCursor =
        documents.length > limit && last !== undefined ? encodeThreadCursor(last.threadId) : null;
      return { threads: page, nextCursor };
    } catch (error) {
      throw mapMongoError(error, 'listThreads');
    }
  }

  async setCompactionPending(tenantId: string, threadId: string, pending: boolean): Promise<void> {
    requireIds({ tenantId, threadId });
    let matched: number;
    try {
      const result = await this.options.collections.threads.updateOne(
        { tenantId, threadId },
        { $set: { compactionPending: pending } },
      );
      matched = result.matchedCount;
    } catch (error) {
      throw mapMongoError(error, 'setCompactionPending');
    }
    if (matched !== 1) throw new NotFoundError('thread', threadId);
  }

  async listCompactionPending(limit = 100): Promise<Array<{ tenantId: string; threadId: string }>> {
    try {
      const documents = await this.options.collections.threads
        .find({ compactionPending: true }, { projection: { _id: 0, tenantId: 1, threadId: 1 } })
        .limit(Math.max(1, limit))
        .toArray();
      return documents.map(({ tenantId, threadId }) => ({ tenantId, threadId }));
    } catch (error) {
      throw mapMongoError(error, 'listCompactionPending');
    }
  }
}
