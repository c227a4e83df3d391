import type { EventInput, StoredEvent } from '../schemas/events.js';

export interface AppendOptions {
  /**
   * The thread version (last seq) the caller saw; -1 or 0 for a thread that must not exist yet.
   * A mismatch throws ConcurrencyError and writes nothing.
   */
  expectedVersion?: number;
}

export interface AppendResult {
  /** The thread's version after the append. */
  version: number;
  /** The batch as stored, in input order; retried events come back with their original seq. */
  events: StoredEvent[];
  /** How many of the batch's events were already stored (idempotent retries). */
  duplicates: number;
}

export interface ReadOptions {
  /** First sequence number to return (inclusive); default 1. */
  fromSeq?: number;
  /** Page size; default and maximum are store-defined. */
  limit?: number;
}

export interface ReadResult {
  events: StoredEvent[];
  /** Where the next page starts, or null at the end. */
  nextSeq: number | null;
}

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

export interface ListThreadsOptions {
  limit?: number;
  /** Opaque cursor from the previous page. */
  cursor?: string;
}

/**
 * The immutable, per-tenant event log. Appends are atomic per batch, idempotent by event id,
 * and guarded by an optional expected version. Another tenant's thread does not exist.
 */
export interface EventStore {
  append(
    tenantId: string,
    threadId: string,
    events: EventInput[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  read(tenantId: string, threadId: string, options?: ReadOptions): Promise<ReadResult>;
  /** Every event of a thread, in order (reads all pages). */
  readAll(tenantId: string, threadId: string): Promise<StoredEvent[]>;
  getThread(tenantId: string, threadId: string): Promise<ThreadMetadata | null>;
  listThreads(
    tenantId: string,
    options?: ListThreadsOptions,
  ): Promise<{ threads: ThreadMetadata[]; nextCursor: string | null }>;
  setCompactionPending(tenantId: string, threadId: string, pending: boolean): Promise<void>;
  /** Threads (of every tenant) whose compaction check is pending, for the sweeper. */
  listCompactionPending(limit?: number): Promise<Array<{ tenantId: string; threadId: string }>>;
}
