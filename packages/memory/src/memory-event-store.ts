import {
  type AppendOptions,
  type AppendResult,
  type Clock,
  ConcurrencyError,
  canonicalEventContent,
  checkExpectedVersion,
  checkThreadRules,
  type EventInput,
  type EventStore,
  type FreshEvent,
  IdempotencyConflictError,
  type ListThreadsOptions,
  NotFoundError,
  parseEventBatch,
  type ReadOptions,
  type ReadResult,
  requireIds,
  type StoredEvent,
  systemClock,
  type ThreadMetadata,
  ValidationError,
} from '@compactor/core';

const PAGE_EVENTS = 1000;
const THREAD_PAGE = 100;

interface ThreadState {
  tenantId: string;
  threadId: string;
  events: StoredEvent[];
  seqByEventId: Map<string, number>;
  messageIds: Set<string>;
  messageTokens: number;
  messageCount: number;
  pending: boolean;
}

/**
 * The event log in memory. Each append validates, checks and writes before its first `await`, so
 * appends are atomic with respect to each other without locks. Events are copied in and out:
 * nothing a caller holds can change the log.
 */
export class MemoryEventStore implements EventStore {
  private readonly threads = new Map<string, ThreadState>();

  constructor(private readonly clock: Clock = systemClock) {}

  async append(
    tenantId: string,
    threadId: string,
    events: EventInput[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    requireIds({ tenantId, threadId });
    const batch = parseEventBatch(events);
    const expectedVersion = checkExpectedVersion(options.expectedVersion);
    const key = threadKey(tenantId, threadId);
    const thread = this.threads.get(key) ?? emptyThread(tenantId, threadId);
    const version = thread.events.length;
    const storedSeqs = batch.map((event) => thread.seqByEventId.get(event.eventId));
    const duplicates = new Map<number, StoredEvent>();
    storedSeqs.forEach((seq, index) => {
      if (seq === undefined) return;
      const stored = thread.events[seq - 1]!;
      if (canonicalEventContent(stored) !== canonicalEventContent(batch[index]!)) {
        throw new IdempotencyConflictError(batch[index]!.eventId);
      }
      duplicates.set(seq, stored);
    });
    if (duplicates.size < batch.length) {
      if (expectedVersion !== undefined && expectedVersion !== version) {
        throw new ConcurrencyError(`thread ${threadId}`, options.expectedVersion ?? version, version);
      }
      const fresh: FreshEvent[] = [];
      batch.forEach((input, position) => {
        if (storedSeqs[position] === undefined) fresh.push({ input, position });
      });
      checkThreadRules(version > 0, fresh, thread.messageIds);
      const timestamp = this.clock.now().toISOString();
      fresh.forEach(({ input: event }, index) => {
        const stored = structuredClone({
          ...event,
          tenantId,
          threadId,
          seq: version + 1 + index,
          timestamp: event.timestamp ?? timestamp,
        }) as StoredEvent;
        thread.events.push(stored);
        thread.seqByEventId.set(stored.eventId, stored.seq);
        if (stored.type === 'message.appended') {
          thread.messageIds.add(stored.message.id);
          thread.messageCount += 1;
          thread.messageTokens += stored.tokens ?? 0;
        }
      });
      this.threads.set(key, thread);
    }
    const result = storedSeqs.map((seq, index) =>
      structuredClone(
        seq === undefined
          ? thread.events[thread.seqByEventId.get(batch[index]!.eventId)! - 1]!
          : duplicates.get(seq)!,
      ),
    );
    return { version: thread.events.length, events: result, duplicates: duplicates.size };
  }

  async read(tenantId: string, threadId: string, options: ReadOptions = {}): Promise<ReadResult> {
    requirePositive(options.fromSeq, 'fromSeq');
    requirePositive(options.limit, 'limit');
    const thread = this.existing(tenantId, threadId);
    const fromSeq = options.fromSeq ?? 1;
    const limit = Math.min(options.limit ?? PAGE_EVENTS, PAGE_EVENTS);
    const version = thread.events.length;
    if (fromSeq > version) return { events: [], nextSeq: null };
    const toSeq = Math.min(version, fromSeq + limit - 1);
    return {
      events: structuredClone(thread.events.slice(fromSeq - 1, toSeq)),
      nextSeq: toSeq < version ? toSeq + 1 : null,
    };
  }

  async readAll(tenantId: string, threadId: string): Promise<StoredEvent[]> {
    return structuredClone(this.existing(tenantId, threadId).events);
  }

  async readNewest(tenantId: string, threadId: string, count: number): Promise<StoredEvent[]> {
    requirePositive(count, 'count');
    const thread = this.existing(tenantId, threadId);
    return structuredClone(thread.events.slice(-Math.min(count, PAGE_EVENTS)));
  }

  async getThread(tenantId: string, threadId: string): Promise<ThreadMetadata | null> {
    const thread = this.threads.get(threadKey(tenantId, threadId));
    return thread ? metadataOf(thread) : null;
  }

  async listThreads(
    tenantId: string,
    options: ListThreadsOptions = {},
  ): Promise<{ threads: ThreadMetadata[]; nextCursor: string | null }> {
    requirePositive(options.limit, 'limit');
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const threads = [...this.threads.values()]
      .filter((thread) => thread.tenantId === tenantId && (after === undefined || thread.threadId > after))
      .sort((left, right) => (left.threadId < right.threadId ? -1 : left.threadId > right.threadId ? 1 : 0));
    const limit = options.limit ?? THREAD_PAGE;
    const page = threads.slice(0, limit);
    const last = page.at(-1);
    return {
      threads: page.map(metadataOf),
      nextCursor: threads.length > limit && last ? encodeCursor(last.threadId) : null,
    };
  }

  async setCompactionPending(tenantId: string, threadId: string, pending: boolean): Promise<void> {
    this.existing(tenantId, threadId).pending = pending;
  }

  async listCompactionPending(limit = THREAD_PAGE): Promise<Array<{ tenantId: string; threadId: string }>> {
    requirePositive(limit, 'limit');
    return [...this.threads.values()]
      .filter((thread) => thread.pending)
      .slice(0, limit)
      .map((thread) => ({ tenantId: thread.tenantId, threadId: thread.threadId }));
  }

  private existing(tenantId: string, threadId: string): ThreadState {
    const thread = this.threads.get(threadKey(tenantId, threadId));
    if (!thread) throw new NotFoundError('thread', threadId);
    return thread;
  }
}

function emptyThread(tenantId: string, threadId: string): ThreadState {
  return {
    tenantId,
    threadId,
    events: [],
    seqByEventId: new Map(),
    messageIds: new Set(),
    messageTokens: 0,
    messageCount: 0,
    pending: false,
  };
}

function metadataOf(thread: ThreadState): ThreadMetadata {
  const created = thread.events[0]!;
  return {
    tenantId: thread.tenantId,
    threadId: thread.threadId,
    model: created.type === 'thread.created' ? created.model : '',
    contextWindow: created.type === 'thread.created' ? created.contextWindow : 0,
    version: thread.events.length,
    eventCount: thread.events.length,
    messageCount: thread.messageCount,
    messageTokens: thread.messageTokens,
    createdAt: created.timestamp,
    updatedAt: thread.events.at(-1)!.timestamp,
    compactionPending: thread.pending,
  };
}

/** Tenant and thread ids may hold any character; a NUL separator cannot collide with either. */
function threadKey(tenantId: string, threadId: string): string {
  return `${tenantId}\u0000${threadId}`;
}

export function requirePositive(value: number | undefined, field: string): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ValidationError(`${field} must be a positive whole number`, [
      { path: field, message: 'invalid' },
    ]);
  }
}

function encodeCursor(threadId: string): string {
  return Buffer.from(JSON.stringify({ after: threadId }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof decoded.after === 'string') return decoded.after;
  } catch {
    // fall through to the error below
  }
  throw new ValidationError('invalid cursor', [
    { path: 'cursor', message: 'not a cursor this store issued' },
  ]);
}
