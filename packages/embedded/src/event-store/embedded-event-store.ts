import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AppendOptions,
  type AppendResult,
  type Clock,
  CompactorError,
  ConcurrencyError,
  canonicalEventContent,
  checkThreadRules,
  type EventInput,
  type EventStore,
  type FreshEvent,
  IdempotencyConflictError,
  IntegrityError,
  type ListThreadsOptions,
  type Logger,
  NotFoundError,
  parseEventBatch,
  type ReadOptions,
  type ReadResult,
  type StoredEvent,
  type ThreadMetadata,
  ValidationError,
} from '@compactor/core';
import type { StoreLocks } from '../concurrency/store-locks.js';
import {
  isMissingFileError,
  readFileIfPresent,
  removeFileDurably,
  writeFileAtomically,
} from '../files/durable-files.js';
import { GroupCommit } from '../files/group-commit.js';
import { RecordLogFile } from '../files/record-log.js';
import { ResidentCache, type ResidentCacheStats } from '../memory/resident-cache.js';
import type { DataLayout } from '../paths/data-layout.js';
import { createStoreContext } from '../store-context.js';
import { type EmbeddedStoreOptions, storeClosedError } from '../store-options.js';
import { requirePositiveInteger } from '../validation.js';
import { ThreadIndex } from './thread-index.js';

/** Events per page when the caller gives no limit, and the most a page ever holds. */
export const DEFAULT_PAGE_EVENTS = 1000;
/** A page stops growing past this many bytes (but always holds at least one event). */
export const MAX_PAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_THREAD_PAGE = 100;

interface ThreadLocation {
  tenantSegment: string;
  threadSegment: string;
  key: string;
}

/**
 * The event log in a local directory: one append-only record log per thread (see RecordLogFile),
 * fsynced per batch, with an in-memory index built the first time a thread is touched. Appends to
 * one thread are written in order under a per-thread lock and acknowledged once durable; the syncs
 * happen outside the lock, so appends queued on one thread share them (ADR-0130). Reads never wait
 * for appends and see only durable events. Shared mode: the lock
 * is also a cross-process lock file, and every read and append first catches the index up with
 * the file's tail (other processes' batches).
 */
export class EmbeddedEventStore implements EventStore {
  private readonly layout: DataLayout;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly locks: StoreLocks;
  private readonly shared: boolean;
  /** Indexes of existing threads, least recently used dropped past the budget; absence is never kept. */
  private readonly threads: ResidentCache<ThreadIndex>;
  /** Every thread's appends are synced in shared rounds (ADR-0095). */
  readonly groupCommit = new GroupCommit();
  /** Exclusive mode: appends written or waiting for their sync, awaited by `close`. */
  private readonly appending = new Set<Promise<AppendResult>>();
  private closed = false;

  /**
   * Open the event store over the configured data directory (no files are touched until first use).
   *
   * @param options - Store options; see {@link EmbeddedStoreOptions}.
   * @throws ValidationError when `sharing` is not a known mode.
   */
  constructor(options: EmbeddedStoreOptions = {}) {
    const context = createStoreContext(options);
    this.layout = context.layout;
    this.clock = context.clock;
    this.logger = context.logger;
    this.shared = context.shared;
    this.locks = context.locks;
    this.threads = new ResidentCache({
      maxBytes: context.cacheBytes,
      sizeOf: (index) => index.approximateBytes,
      worthKeeping: (index) => index.version > 0,
      // Each resident thread keeps its log's file open; dropping the thread closes it.
      dispose: (index) => index.log.close(),
    });
  }

  /**
   * How much of its memory budget the thread index cache uses.
   *
   * @returns Entries, bytes and the byte limit.
   */
  get cacheStats(): ResidentCacheStats {
    return this.threads.stats;
  }

  async append(
    tenantId: string,
    threadId: string,
    events: EventInput[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    this.ensureOpen();
    const location = this.locate(tenantId, threadId);
    const batch = parseEventBatch(events);
    const { expectedVersion } = options;
    if (expectedVersion !== undefined && (!Number.isSafeInteger(expectedVersion) || expectedVersion < -1)) {
      throw new ValidationError('expectedVersion must be a whole number of at least -1', [
        { path: 'expectedVersion', message: 'invalid' },
      ]);
    }
    if (this.shared) {
      return this.locks.run(`events/${location.key}`, () =>
        this.withThread(location, tenantId, threadId, async (thread) => {
          const { result, durable } = await this.appendLocked(
            thread,
            tenantId,
            threadId,
            batch,
            expectedVersion,
          );
          await durable;
          return result();
        }),
      );
    }
    // Exclusive: the thread's lock covers the checks and the write; the sync is awaited outside
    // it, so the appends queued behind this one write theirs and share its sync (ADR-0130). The
    // index stays pinned until the batch is durable.
    const appending = this.withThread(location, tenantId, threadId, async (thread) => {
      const { result, durable } = await this.locks.run(`events/${location.key}`, () =>
        this.appendLocked(thread, tenantId, threadId, batch, expectedVersion),
      );
      await durable;
      return result();
    });
    this.appending.add(appending);
    try {
      return await appending;
    } finally {
      this.appending.delete(appending);
    }
  }

  /**
   * Under the thread's lock: idempotency, `expectedVersion` and the thread rules, then the batch
   * written (shared mode: written and fsynced). The caller awaits `durable` (exclusive mode: after
   * releasing the lock) and only then builds the result.
   */
  private async appendLocked(
    thread: ThreadIndex,
    tenantId: string,
    threadId: string,
    batch: EventInput[],
    expectedVersion: number | undefined,
  ): Promise<{ durable: Promise<unknown>; result: () => AppendResult }> {
    // Shared: another process may have appended (or crashed mid-append) since; we hold the lock.
    if (this.shared) await thread.log.catchUp(true);
    // Events written but not durable yet decide nothing a reader could disagree with: a batch that
    // names one of them (a retry racing its first attempt), checks a version, or would create the
    // thread waits until they are durable (or cut off), as if appends were not pipelined.
    if (
      thread.hasPending &&
      (expectedVersion !== undefined ||
        thread.version === 0 ||
        batch.some((event) =>
          thread.isPending(event.eventId, event.type === 'message.appended' ? event.message.id : undefined),
        ))
    ) {
      await thread.log.settled();
    }
    const version = thread.version;
    const storedSeqs = batch.map((event) => thread.seqByEventId.get(event.eventId));
    const duplicates = await this.readDuplicates(thread, batch, storedSeqs);
    if (duplicates.size === batch.length) {
      const result = {
        version,
        events: storedSeqs.map((seq) => duplicates.get(seq!)!),
        duplicates: duplicates.size,
      };
      return { durable: Promise.resolve(), result: () => result };
    }
    if (expectedVersion !== undefined && Math.max(expectedVersion, 0) !== version) {
      throw new ConcurrencyError(`thread ${threadId}`, expectedVersion, version);
    }
    const fresh: FreshEvent[] = [];
    batch.forEach((input, position) => {
      if (storedSeqs[position] === undefined) fresh.push({ input, position });
    });
    const firstSeq = thread.writtenVersion + 1;
    checkThreadRules(firstSeq > 1, fresh, thread.messageIds);
    const timestamp = this.clock.now().toISOString();
    const toStore: StoredEvent[] = fresh.map(({ input: event }, index) => ({
      ...event,
      tenantId,
      threadId,
      seq: firstSeq + index,
      timestamp: event.timestamp ?? timestamp,
    }));
    const result = (): AppendResult => {
      let freshIndex = 0;
      const events = storedSeqs.map((seq) =>
        seq === undefined ? toStore[freshIndex++]! : duplicates.get(seq)!,
      );
      return { version: toStore.at(-1)!.seq, events, duplicates: duplicates.size };
    };
    if (this.shared) {
      // The log folds the batch into the thread's index once it is fsynced.
      await thread.log.append(toStore);
      return { durable: Promise.resolve(), result };
    }
    let pending = false;
    try {
      const written = await thread.log.write(toStore, () => {
        // Our seqs were taken before the write's awaits; a cut-off since would have freed them.
        if (thread.writtenVersion + 1 !== firstSeq) {
          throw new CompactorError('unavailable', `thread ${threadId}: an earlier append failed; retry`, {
            isRetryable: true,
          });
        }
        thread.addPending(toStore);
        pending = true;
      });
      // The log folds the batch into the thread's index (and out of its pending events) once it is
      // durable, or, when it is cut off, tells the index to forget it (onCutOff).
      return { durable: written.durable, result };
    } catch (error) {
      if (pending) thread.forget(toStore);
      throw error;
    }
  }

  async read(tenantId: string, threadId: string, options: ReadOptions = {}): Promise<ReadResult> {
    this.ensureOpen();
    requirePositiveInteger(options.fromSeq, 'fromSeq');
    requirePositiveInteger(options.limit, 'limit');
    return this.withExistingThread(tenantId, threadId, (thread) => readPage(thread, options));
  }

  async readNewest(tenantId: string, threadId: string, count: number): Promise<StoredEvent[]> {
    this.ensureOpen();
    requirePositiveInteger(count, 'count');
    return this.withExistingThread(tenantId, threadId, (thread) => readNewestPage(thread, count));
  }

  async readAll(tenantId: string, threadId: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let fromSeq: number | null = 1;
    while (fromSeq !== null) {
      const page: ReadResult = await this.read(tenantId, threadId, { fromSeq });
      events.push(...page.events);
      fromSeq = page.nextSeq;
    }
    return events;
  }

  async getThread(tenantId: string, threadId: string): Promise<ThreadMetadata | null> {
    this.ensureOpen();
    const location = this.locate(tenantId, threadId);
    return this.withThread(location, tenantId, threadId, async (thread) => {
      if (this.shared) await this.catchUpForRead(thread, location);
      return thread.version === 0 ? null : thread.metadata();
    });
  }

  async listThreads(
    tenantId: string,
    options: ListThreadsOptions = {},
  ): Promise<{ threads: ThreadMetadata[]; nextCursor: string | null }> {
    this.ensureOpen();
    requirePositiveInteger(options.limit, 'limit');
    const tenantSegment = this.layout.tenantSegment(tenantId);
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    let names: string[];
    try {
      names = await readdir(this.layout.eventsDirectory(tenantSegment));
    } catch (error) {
      if (isMissingFileError(error)) return { threads: [], nextCursor: null };
      throw error;
    }
    const threads: ThreadMetadata[] = [];
    for (const name of names) {
      if (!name.endsWith('.log')) continue;
      const threadSegment = name.slice(0, -'.log'.length);
      const location = { tenantSegment, threadSegment, key: `${tenantSegment}/${threadSegment}` };
      const metadata = await this.withThread(location, tenantId, undefined, async (thread) => {
        if (this.shared) await this.catchUpForRead(thread, location);
        return thread.version > 0 ? thread.metadata() : null;
      });
      if (metadata) threads.push(metadata);
    }
    threads.sort((left, right) => compareStrings(left.threadId, right.threadId));
    const remaining = after === undefined ? threads : threads.filter((thread) => thread.threadId > after);
    const limit = options.limit ?? DEFAULT_THREAD_PAGE;
    const page = remaining.slice(0, limit);
    const last = page.at(-1);
    return {
      threads: page,
      nextCursor: remaining.length > limit && last ? encodeCursor(last.threadId) : null,
    };
  }

  async setCompactionPending(tenantId: string, threadId: string, pending: boolean): Promise<void> {
    this.ensureOpen();
    const location = this.locate(tenantId, threadId);
    await this.locks.run(`events/${location.key}`, () =>
      this.withThread(location, tenantId, threadId, async (thread) => {
        if (this.shared) await thread.log.catchUp(true);
        if (thread.version === 0) throw new NotFoundError('thread', threadId);
        const marker = this.layout.pendingMarker(location.tenantSegment, location.threadSegment);
        if (pending) await writeFileAtomically(marker, JSON.stringify({ tenantId, threadId }));
        else await removeFileDurably(marker);
        thread.compactionPending = pending;
      }),
    );
  }

  async listCompactionPending(
    limit = DEFAULT_THREAD_PAGE,
  ): Promise<Array<{ tenantId: string; threadId: string }>> {
    this.ensureOpen();
    requirePositiveInteger(limit, 'limit');
    const found: Array<{ tenantId: string; threadId: string }> = [];
    const root = this.layout.pendingRoot();
    for (const tenantSegment of (await readdirIfPresent(root)).sort()) {
      for (const name of (await readdirIfPresent(join(root, tenantSegment))).sort()) {
        if (found.length >= limit) return found;
        if (!name.endsWith('.json')) continue;
        const marker = await readFileIfPresent(join(root, tenantSegment, name));
        if (marker) found.push(JSON.parse(marker.toString('utf8')) as { tenantId: string; threadId: string });
      }
    }
    return found;
  }

  /** Wait for appends in flight, then refuse new calls. */
  async close(): Promise<void> {
    this.closed = true;
    await this.locks.drain();
    await Promise.allSettled([...this.appending]);
    await this.threads.clear();
  }

  private ensureOpen(): void {
    if (this.closed) throw storeClosedError('the embedded event store');
  }

  private locate(tenantId: string, threadId: string): ThreadLocation {
    const tenantSegment = this.layout.tenantSegment(tenantId);
    const threadSegment = this.layout.threadSegment(threadId);
    return { tenantSegment, threadSegment, key: `${tenantSegment}/${threadSegment}` };
  }

  private withExistingThread<T>(
    tenantId: string,
    threadId: string,
    task: (thread: ThreadIndex) => Promise<T>,
  ): Promise<T> {
    return this.withThread(this.locate(tenantId, threadId), tenantId, threadId, async (thread) => {
      if (this.shared) await thread.log.catchUp(false);
      if (thread.version === 0) throw new NotFoundError('thread', threadId);
      return task(thread);
    });
  }

  /**
   * Run `task` with the thread's index, built from its log (cutting a crash-torn tail) when it is
   * not resident. The index cannot be dropped while `task` runs, so there is never a second one.
   */
  private withThread<T>(
    location: ThreadLocation,
    tenantId: string,
    threadId: string | undefined,
    task: (thread: ThreadIndex) => Promise<T>,
  ): Promise<T> {
    return this.threads.use(
      location.key,
      () => this.buildIndex(location),
      (thread) => {
        // Only a SHA-256 collision of two long ids could trip this; never serve the wrong thread.
        const sameTenant = thread.tenantId === undefined || thread.tenantId === tenantId;
        const sameThread =
          thread.threadId === undefined || threadId === undefined || thread.threadId === threadId;
        if (!sameTenant || !sameThread) {
          throw new IntegrityError(
            `log ${location.key} belongs to another thread than ${tenantId}/${threadId ?? '?'}`,
          );
        }
        return task(thread);
      },
    );
  }

  private async buildIndex(location: ThreadLocation): Promise<ThreadIndex> {
    const path = this.layout.eventLog(location.tenantSegment, location.threadSegment);
    const index = new ThreadIndex(path);
    const log = await RecordLogFile.open(
      path,
      (records) => {
        for (const record of records) index.add(record.value as StoredEvent, record);
      },
      this.logger,
      {
        shared: this.shared,
        keepOpen: true,
        groupCommit: this.groupCommit,
        onCutOff: (values) => index.forget(values as StoredEvent[]),
      },
    );
    index.attach(log);
    if (index.version > 0) {
      index.compactionPending =
        (await readFileIfPresent(
          this.layout.pendingMarker(location.tenantSegment, location.threadSegment),
        )) !== null;
    }
    return index;
  }

  /**
   * Shared mode, before a read: fold in whatever other processes appended (one `stat` when
   * nothing changed) and re-read the pending flag, which other processes set and clear.
   */
  private async catchUpForRead(thread: ThreadIndex, location: ThreadLocation): Promise<void> {
    await thread.log.catchUp(false);
    if (thread.version > 0) {
      thread.compactionPending =
        (await readFileIfPresent(
          this.layout.pendingMarker(location.tenantSegment, location.threadSegment),
        )) !== null;
    }
  }

  /** The stored events of a batch's already-stored ids; throws on any that differ. */
  private async readDuplicates(
    thread: ThreadIndex,
    batch: readonly EventInput[],
    storedSeqs: ReadonlyArray<number | undefined>,
  ): Promise<Map<number, StoredEvent>> {
    const duplicates = new Map<number, StoredEvent>();
    for (const [index, seq] of storedSeqs.entries()) {
      if (seq === undefined) continue;
      const range = thread.byteRange(seq, seq);
      const [stored] = (await thread.log.read(range.offset, range.length)) as StoredEvent[];
      const event = batch[index]!;
      if (!stored || canonicalEventContent(stored) !== canonicalEventContent(event)) {
        throw new IdempotencyConflictError(event.eventId);
      }
      duplicates.set(seq, stored);
    }
    return duplicates;
  }
}

/** Up to `limit` events from `fromSeq`, stopping before a page would pass MAX_PAGE_BYTES. */
async function readPage(thread: ThreadIndex, options: ReadOptions): Promise<ReadResult> {
  const fromSeq = options.fromSeq ?? 1;
  const limit = Math.min(options.limit ?? DEFAULT_PAGE_EVENTS, DEFAULT_PAGE_EVENTS);
  // A snapshot: appends after this line only add bytes past what we read.
  const version = thread.version;
  if (fromSeq > version) return { events: [], nextSeq: null };
  let toSeq = fromSeq;
  let bytes = thread.recordLength(fromSeq);
  while (toSeq < version && toSeq - fromSeq + 1 < limit) {
    const next = thread.recordLength(toSeq + 1);
    if (bytes + next > MAX_PAGE_BYTES) break;
    bytes += next;
    toSeq += 1;
  }
  const range = thread.byteRange(fromSeq, toSeq);
  const events = (await thread.log.read(range.offset, range.length)) as StoredEvent[];
  return { events, nextSeq: toSeq < version ? toSeq + 1 : null };
}

/** The newest `count` events (within a page's events and bytes), found backwards through the index. */
async function readNewestPage(thread: ThreadIndex, count: number): Promise<StoredEvent[]> {
  const limit = Math.min(count, DEFAULT_PAGE_EVENTS);
  const version = thread.version;
  let fromSeq = version;
  let bytes = thread.recordLength(version);
  while (fromSeq > 1 && version - fromSeq + 1 < limit) {
    const previous = thread.recordLength(fromSeq - 1);
    if (bytes + previous > MAX_PAGE_BYTES) break;
    bytes += previous;
    fromSeq -= 1;
  }
  const range = thread.byteRange(fromSeq, version);
  return (await thread.log.read(range.offset, range.length)) as StoredEvent[];
}

function compareStrings(left: string, right: string): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
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
  throw new ValidationError('invalid cursor', [{ path: 'cursor', message: 'not a cursor from listThreads' }]);
}

async function readdirIfPresent(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if (isMissingFileError(error)) return [];
    throw error;
  }
}
