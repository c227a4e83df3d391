import type { EventInput, StoredEvent } from '../schemas/events.js';

/** How an append is guarded. */
export interface AppendOptions {
  /**
   * The thread version (last seq) the caller saw; -1 or 0 for a thread that must not exist yet.
   * A mismatch throws ConcurrencyError and writes nothing (a pure retry is exempt, see EventStore).
   */
  expectedVersion?: number;
}

/** What an append stored. */
export interface AppendResult {
  /** The thread's version after the append. */
  version: number;
  /** The batch as stored, in input order; retried events come back with their original seq. */
  events: StoredEvent[];
  /** How many of the batch's events were already stored (idempotent retries). */
  duplicates: number;
}

/** Which page of a thread's events to read. */
export interface ReadOptions {
  /**
   * First sequence number to return (inclusive).
   * @defaultValue 1
   */
  fromSeq?: number;
  /**
   * Page size.
   * @defaultValue store-defined (as is the maximum)
   */
  limit?: number;
}

/** A page of events. */
export interface ReadResult {
  events: StoredEvent[];
  /** Where the next page starts, or null at the end. */
  nextSeq: number | null;
}

/** A thread's summary figures, kept by the store as events are appended. */
export interface ThreadMetadata {
  tenantId: string;
  threadId: string;
  model: string;
  contextWindow: number;
  version: number;
  eventCount: number;
  messageCount: number;
  /** Sum of the `tokens` stored with message events. */
  messageTokens: number;
  createdAt: string;
  updatedAt: string;
  /** Set by the ingest when a compaction check could not be enqueued (the sweeper picks it up). */
  compactionPending: boolean;
}

/** Which page of a tenant's threads to list. */
export interface ListThreadsOptions {
  limit?: number;
  /** Opaque cursor from the previous page. */
  cursor?: string;
}

/**
 * The immutable, per-tenant event log. Appends are atomic per batch, idempotent by event id,
 * and guarded by an optional expected version. Another tenant's thread does not exist.
 *
 * The rules every adapter keeps (the testkit's `testEventStore` checks each one):
 * - Tenant and thread ids are non-empty strings; events are validated with `eventInputSchema`.
 *   Bad input is a ValidationError listing field issues (paths start with the event's index in
 *   the batch), and nothing is written. An empty batch, or one repeating an event id, is invalid.
 * - A thread that does not exist (for this tenant) must be started by a batch whose first event
 *   is `thread.created`; `thread.created` anywhere else is a ValidationError. So is a
 *   `message.appended` whose message id is already in the thread (it would make the thread
 *   unfoldable).
 * - Seqs start at 1 and are contiguous. A supplied `timestamp` is kept verbatim; a missing one is
 *   set by the store from its clock.
 * - Idempotency by event id (unique per thread): "same content" compares the canonical payload
 *   (`stableStringify` of the validated event without its `timestamp`, so a retry may carry a
 *   later client timestamp; the stored one wins). A batch whose events are ALL stored with the
 *   same content returns the stored events (`duplicates` = batch length) without checking
 *   `expectedVersion`: a retry is always safe. A batch mixing stored and new events checks
 *   `expectedVersion` against the current version, then stores only the new ones, in input
 *   order. Any event id stored with different content is an IdempotencyConflictError and
 *   nothing of the batch is written.
 * - Order of checks: validation, idempotency (conflict, then the all-duplicates retry), expected
 *   version (ConcurrencyError), then the thread rules above.
 * - `read`/`readAll`/`readNewest` of an unknown thread throw NotFoundError; `getThread` returns null.
 * - Neither "events since seq N" (`read` from `fromSeq`) nor "the newest K events" (`readNewest`)
 *   scans the whole log: each adapter serves them from its index on (tenant, thread, seq), so a
 *   consumer that keeps a folded thread pays for what is new (issue #18, ADR-0121).
 *   `fromSeq` and `limit` must be positive integers. A page may hold fewer than `limit` events
 *   only when the store caps page bytes; `nextSeq` is then the next event's seq.
 * - Thread metadata: `createdAt` is the `thread.created` event's timestamp, `updatedAt` the last
 *   event's; `messageTokens` sums the `tokens` of `message.appended` events only.
 */
export interface EventStore {
  /**
   * Append a batch atomically, by the rules above.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param events - The batch, in order.
   * @param options - The expected version.
   * @returns The new version, the batch as stored, and how many were retries.
   * @throws ValidationError for bad input or a batch that breaks the thread rules;
   *   IdempotencyConflictError for a reused event id with other content; ConcurrencyError for a
   *   stale `expectedVersion`.
   */
  append(
    tenantId: string,
    threadId: string,
    events: EventInput[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /**
   * One page of a thread's events.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param options - Where the page starts and how long it is.
   * @returns The events and where the next page starts.
   * @throws NotFoundError for an unknown thread; ValidationError for a non-positive `fromSeq` or `limit`.
   */
  read(tenantId: string, threadId: string, options?: ReadOptions): Promise<ReadResult>;
  /**
   * Every event of a thread, in order (reads all pages).
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @returns The events.
   * @throws NotFoundError for an unknown thread.
   */
  readAll(tenantId: string, threadId: string): Promise<StoredEvent[]>;
  /**
   * The newest `count` events of a thread, oldest first, read without scanning the log before them.
   * At most the store's largest page (by events, and by bytes where the store caps a page's bytes).
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param count - How many events: an integer ≥ 1.
   * @returns The events, oldest first (all of them when the thread has fewer).
   * @throws NotFoundError for an unknown thread; ValidationError for a bad `count`.
   */
  readNewest(tenantId: string, threadId: string, count: number): Promise<StoredEvent[]>;
  /**
   * A thread's metadata.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @returns The metadata, or null for an unknown thread.
   */
  getThread(tenantId: string, threadId: string): Promise<ThreadMetadata | null>;
  /**
   * One page of a tenant's threads.
   *
   * @param tenantId - The tenant.
   * @param options - Page size and the previous page's cursor.
   * @returns The threads and the next cursor (null at the end).
   */
  listThreads(
    tenantId: string,
    options?: ListThreadsOptions,
  ): Promise<{ threads: ThreadMetadata[]; nextCursor: string | null }>;
  /**
   * Mark or clear a thread's pending compaction check (set when it could not be enqueued).
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param pending - The new flag.
   */
  setCompactionPending(tenantId: string, threadId: string, pending: boolean): Promise<void>;
  /**
   * Threads (of every tenant) whose compaction check is pending, for the sweeper.
   *
   * @param limit - The most returned.
   * @returns Their tenant and thread ids.
   */
  listCompactionPending(limit?: number): Promise<Array<{ tenantId: string; threadId: string }>>;
}
