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
import type { Pool, PoolClient } from 'pg';
import { readNewestSql, readPageSql } from './event-queries.js';
import {
  batchTotals,
  type HashedInput,
  hashInput,
  storedEventFromInput,
  THREAD_COLUMNS,
  type ThreadRow,
  threadRowToMetadata,
} from './event-rows.js';
import { isUniqueViolation, mapPostgresError } from './postgres-error-mapping.js';
import type { SqlNames } from './sql-names.js';
import { decodeThreadCursor, encodeThreadCursor } from './thread-cursor.js';
import { inTransaction } from './transactions.js';

/** What a PostgreSQL event store needs. */
export interface PostgresEventStoreOptions {
  pool: Pool;
  names: SqlNames;
  clock: Clock;
  /** Events per `read` page when the caller gives no limit. @defaultValue 1000 */
  defaultPageSize?: number;
  /** Largest page `read` returns. @defaultValue 10,000 */
  maxPageSize?: number;
  /** How often an append re-reads and retries after a racing creator's unique violation. @defaultValue 5 */
  maxAppendAttempts?: number;
}

/** A stored row found by event id or by message id while deciding a batch. */
interface ExistingRow {
  event_id: string;
  message_id: string | null;
  content_hash: string;
  event: StoredEvent;
}

/**
 * The event log in PostgreSQL: one row per event (primary key tenant, thread, seq; unique event id
 * and message id per thread) and a `threads` row per thread holding the version and totals.
 * A batch is one transaction that locks the thread's row (`FOR UPDATE`), so appends to one thread
 * are serialized while appends to different threads run in parallel. Two creators of one new
 * thread have no row to lock: the loser hits a unique violation, re-reads and decides again
 * (duplicate, validation or concurrency), never surfacing the raw driver error.
 */
export class PostgresEventStore implements EventStore {
  private readonly defaultPageSize: number;
  private readonly maxPageSize: number;
  private readonly maxAppendAttempts: number;

  /** @param options - Pool, table names, clock and page sizes. */
  constructor(private readonly options: PostgresEventStoreOptions) {
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
    const batch = parseEventBatch(events).map(hashInput);
    const expectedVersion = checkExpectedVersion(options.expectedVersion);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await inTransaction(this.options.pool, (client) =>
          this.appendInTransaction(client, tenantId, threadId, batch, expectedVersion),
        );
      } catch (error) {
        if (!isUniqueViolation(error)) throw mapPostgresError(error, 'append');
        if (attempt >= this.maxAppendAttempts) {
          const actual = (await this.getThread(tenantId, threadId))?.version ?? 0;
          throw new ConcurrencyError(`thread ${threadId}`, options.expectedVersion ?? actual, actual);
        }
      }
    }
  }

  private async appendInTransaction(
    client: PoolClient,
    tenantId: string,
    threadId: string,
    batch: readonly HashedInput[],
    expectedVersion: number | undefined,
  ): Promise<AppendResult> {
    const { names } = this.options;
    const locked = await client.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM ${names.threads} WHERE tenant_id = $1 AND thread_id = $2 FOR UPDATE`,
      [tenantId, threadId],
    );
    const thread = locked.rows[0];
    const existing = thread === undefined ? [] : await this.findExisting(client, tenantId, threadId, batch);
    const storedById = new Map(existing.map((row) => [row.event_id, row]));
    for (const { input, contentHash } of batch) {
      const stored = storedById.get(input.eventId);
      if (stored !== undefined && stored.content_hash !== contentHash) {
        throw new IdempotencyConflictError(input.eventId);
      }
    }
    const currentVersion = thread?.version ?? 0;
    const fresh: FreshEvent[] = [];
    batch.forEach(({ input }, position) => {
      if (!storedById.has(input.eventId)) fresh.push({ input, position });
    });
    if (fresh.length === 0) {
      // A retry of a batch already stored: the original events, whatever the expected version.
      const original = batch.map(({ input }) => storedById.get(input.eventId)!.event);
      return { version: currentVersion, events: original, duplicates: batch.length };
    }
    if (expectedVersion !== undefined && expectedVersion !== currentVersion) {
      throw new ConcurrencyError(`thread ${threadId}`, expectedVersion, currentVersion);
    }
    const storedMessageIds = new Set(
      existing.flatMap((row) => (row.message_id === null ? [] : [row.message_id])),
    );
    checkThreadRules(thread !== undefined, fresh, storedMessageIds);
    const now = this.options.clock.now().toISOString();
    const written = fresh.map(({ input }, index) =>
      storedEventFromInput(input, { tenantId, threadId, seq: currentVersion + index + 1, timestamp: now }),
    );
    await this.insertEvents(
      client,
      written,
      fresh.map(({ position }) => batch[position]!.contentHash),
    );
    const newVersion = currentVersion + written.length;
    await this.moveThread(client, thread, written, newVersion);
    const byId = new Map(written.map((event) => [event.eventId, event]));
    const stored = batch.map(({ input }) => byId.get(input.eventId) ?? storedById.get(input.eventId)!.event);
    return { version: newVersion, events: stored, duplicates: batch.length - written.length };
  }

  /** The batch's event ids already stored, and the stored events holding any of its message ids: one query. */
  private async findExisting(
    client: PoolClient,
    tenantId: string,
    threadId: string,
    batch: readonly HashedInput[],
  ): Promise<ExistingRow[]> {
    const eventIds = batch.map(({ input }) => input.eventId);
    const messageIds = messageIdsOf(batch.map(({ input }, position) => ({ input, position })));
    const found = await client.query<ExistingRow>(
      `SELECT event_id, message_id, content_hash, event FROM ${this.options.names.events}
        WHERE tenant_id = $1 AND thread_id = $2 AND (event_id = ANY($3::text[]) OR message_id = ANY($4::text[]))`,
      [tenantId, threadId, eventIds, messageIds],
    );
    return found.rows;
  }

  /** One INSERT for the whole batch, its columns passed as arrays. */
  private async insertEvents(client: PoolClient, events: readonly StoredEvent[], hashes: readonly string[]) {
    const first = events[0]!;
    await client.query(
      `INSERT INTO ${this.options.names.events} (tenant_id, thread_id, seq, event_id, message_id, content_hash, event)
        SELECT $1, $2, row.seq, row.event_id, row.message_id, row.content_hash, row.event::json
          FROM unnest($3::integer[], $4::text[], $5::text[], $6::text[], $7::text[])
            AS row(seq, event_id, message_id, content_hash, event)`,
      [
        first.tenantId,
        first.threadId,
        events.map((event) => event.seq),
        events.map((event) => event.eventId),
        events.map((event) => (event.type === 'message.appended' ? event.message.id : null)),
        hashes,
        events.map((event) => JSON.stringify(event)),
      ],
    );
  }

  private async moveThread(
    client: PoolClient,
    thread: ThreadRow | undefined,
    written: readonly StoredEvent[],
    newVersion: number,
  ): Promise<void> {
    const { messageCount, messageTokens } = batchTotals(written);
    const first = written[0]!;
    // updatedAt is the last event's timestamp (supplied or set), createdAt the thread.created one's.
    const updatedAt = written.at(-1)!.timestamp;
    if (thread === undefined) {
      if (first.type !== 'thread.created')
        throw new ValidationError('a new thread must start with thread.created');
      // A racing creator makes this (or the events insert) a unique violation: the caller retries.
      await client.query(
        `INSERT INTO ${this.options.names.threads} (${THREAD_COLUMNS})
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false)`,
        [
          first.tenantId,
          first.threadId,
          first.model,
          first.contextWindow,
          newVersion,
          written.length,
          messageCount,
          messageTokens,
          first.timestamp,
          updatedAt,
        ],
      );
      return;
    }
    await client.query(
      `UPDATE ${this.options.names.threads}
          SET version = $3, event_count = event_count + $4, message_count = message_count + $5,
              message_tokens = message_tokens + $6, updated_at = $7
        WHERE tenant_id = $1 AND thread_id = $2`,
      [
        thread.tenant_id,
        thread.thread_id,
        newVersion,
        written.length,
        messageCount,
        messageTokens,
        updatedAt,
      ],
    );
  }

  async read(tenantId: string, threadId: string, options: ReadOptions = {}): Promise<ReadResult> {
    requireIds({ tenantId, threadId });
    const fromSeq = options.fromSeq ?? 1;
    const limit = options.limit ?? this.defaultPageSize;
    requirePositiveInteger('fromSeq', fromSeq);
    requirePositiveInteger('limit', limit);
    const pageSize = Math.min(limit, this.maxPageSize);
    const { names, pool } = this.options;
    let rows: Array<{ version: number; event: StoredEvent | null }>;
    try {
      const result = await pool.query<{ version: number; event: StoredEvent | null }>(readPageSql(names), [
        tenantId,
        threadId,
        fromSeq,
        pageSize,
      ]);
      rows = result.rows;
    } catch (error) {
      throw mapPostgresError(error, 'read');
    }
    if (rows.length === 0) throw new NotFoundError('thread', threadId);
    const version = rows[0]!.version;
    const events = rows.flatMap((row) => (row.event === null ? [] : [row.event]));
    const lastSeq = events.at(-1)?.seq;
    const more = events.length === pageSize && lastSeq !== undefined && lastSeq < version;
    return { events, nextSeq: more ? lastSeq + 1 : null };
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

  /**
   * The newest `count` events of a thread, oldest first: a backward scan of the primary key that
   * reads `count` rows however long the thread is (what a renderer's tail or a live view needs).
   *
   * @param tenantId - The tenant.
   * @param threadId - The thread.
   * @param count - How many events, capped at the largest page.
   * @returns The events, oldest first.
   * @throws ValidationError when `count` is not an integer ≥ 1 or an id is invalid.
   * @throws NotFoundError when the thread does not exist.
   */
  async readNewest(tenantId: string, threadId: string, count: number): Promise<StoredEvent[]> {
    requireIds({ tenantId, threadId });
    requirePositiveInteger('count', count);
    const { names, pool } = this.options;
    let rows: Array<{ event: StoredEvent | null }>;
    try {
      const result = await pool.query<{ event: StoredEvent | null }>(readNewestSql(names), [
        tenantId,
        threadId,
        Math.min(count, this.maxPageSize),
      ]);
      rows = result.rows;
    } catch (error) {
      throw mapPostgresError(error, 'readNewest');
    }
    if (rows.length === 0) throw new NotFoundError('thread', threadId);
    return rows.flatMap((row) => (row.event === null ? [] : [row.event]));
  }

  async getThread(tenantId: string, threadId: string): Promise<ThreadMetadata | null> {
    requireIds({ tenantId, threadId });
    try {
      const result = await this.options.pool.query<ThreadRow>(
        `SELECT ${THREAD_COLUMNS} FROM ${this.options.names.threads} WHERE tenant_id = $1 AND thread_id = $2`,
        [tenantId, threadId],
      );
      const row = result.rows[0];
      return row === undefined ? null : threadRowToMetadata(row);
    } catch (error) {
      throw mapPostgresError(error, 'getThread');
    }
  }

  async listThreads(
    tenantId: string,
    options: ListThreadsOptions = {},
  ): Promise<{ threads: ThreadMetadata[]; nextCursor: string | null }> {
    requireIds({ tenantId });
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    const after = options.cursor === undefined ? null : decodeThreadCursor(options.cursor);
    try {
      const result = await this.options.pool.query<ThreadRow>(
        `SELECT ${THREAD_COLUMNS} FROM ${this.options.names.threads}
          WHERE tenant_id = $1 AND ($2::text IS NULL OR thread_id > $2::text)
          ORDER BY thread_id LIMIT $3`,
        [tenantId, after, limit + 1],
      );
      const page = result.rows.slice(0, limit).map(threadRowToMetadata);
      const last = page.at(-1);
      const nextCursor =
        result.rows.length > limit && last !== undefined ? encodeThreadCursor(last.threadId) : null;
      return { threads: page, nextCursor };
    } catch (error) {
      throw mapPostgresError(error, 'listThreads');
    }
  }

  async setCompactionPending(tenantId: string, threadId: string, pending: boolean): Promise<void> {
    requireIds({ tenantId, threadId });
    let updated: number;
    try {
      const result = await this.options.pool.query(
        `UPDATE ${this.options.names.threads} SET compaction_pending = $3 WHERE tenant_id = $1 AND thread_id = $2`,
        [tenantId, threadId, pending],
      );
      updated = result.rowCount ?? 0;
    } catch (error) {
      throw mapPostgresError(error, 'setCompactionPending');
    }
    if (updated !== 1) throw new NotFoundError('thread', threadId);
  }

  async listCompactionPending(limit = 100): Promise<Array<{ tenantId: string; threadId: string }>> {
    try {
      const result = await this.options.pool.query<{ tenant_id: string; thread_id: string }>(
        `SELECT tenant_id, thread_id FROM ${this.options.names.threads} WHERE compaction_pending LIMIT $1`,
        [Math.max(1, limit)],
      );
      return result.rows.map((row) => ({ tenantId: row.tenant_id, threadId: row.thread_id }));
    } catch (error) {
      throw mapPostgresError(error, 'listCompactionPending');
    }
  }
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new ValidationError(`invalid ${name}`, [{ path: name, message: 'must be an integer ≥ 1' }]);
  }
}
