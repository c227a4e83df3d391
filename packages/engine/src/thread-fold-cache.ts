import {
  approximateBytes,
  type CompactionPlan,
  type EventStore,
  extendThread,
  foldThreadEvents,
  NotFoundError,
  type StoredEvent,
  type Thread,
  type ThreadFold,
  type ThreadMessage,
} from '@compactor/core';
import { compactMessages, idsHiddenBy } from './compact-messages.js';

/** How much memory a {@link ThreadFoldCache} may keep. */
export interface ThreadFoldCacheOptions {
  /**
   * The most memory (estimated) the folded threads may hold, in bytes; least recently loaded threads
   * are dropped first. A thread larger than the whole budget is folded but not kept. 0 keeps nothing.
   * @defaultValue {@link DEFAULT_THREAD_FOLD_CACHE_BYTES} (64 MiB)
   */
  maxBytes?: number;
}

/** Counters and memory of a {@link ThreadFoldCache}, for metrics and tests. */
export interface ThreadFoldCacheStats {
  /** Loads served by the kept fold with nothing new in the log. */
  hits: number;
  /** Loads that extended the kept fold with the events appended since. */
  extended: number;
  /** Loads that folded the whole log (first touch, eviction, restart). */
  rebuilds: number;
  /** Events read from the store, in total: one append costs one event on a warm thread. */
  eventsRead: number;
  /** Bytes held now (estimated). */
  bytes: number;
  maxBytes: number;
  /** Threads kept now. */
  threads: number;
  /** Threads dropped to stay within maxBytes. */
  evictions: number;
  /** Messages of the kept threads held in compact form (hidden by the plan they were loaded with, ADR-0285). */
  compactedMessages: number;
}

/** The fold cache's bound when none is given: 64 MiB. */
export const DEFAULT_THREAD_FOLD_CACHE_BYTES = 64 * 1024 * 1024;
/** A folded message's own slots (seq, index, turn) and the thread's reference to it. */
const FOLDED_MESSAGE_BYTES = 64;
/** Bytes of one id in the fold's id set. */
const ID_SET_ENTRY_BYTES = 48;

interface KeptFold {
  fold: ThreadFold;
  bytes: number;
  /** The plan (by its stamp) whose hidden messages were compacted last, if any. */
  compactedFor?: string;
  /** Messages held in compact form. */
  compacted: number;
}

/**
 * Folded threads kept per (tenant, thread) between loads, so a check or a render after one append
 * reads and folds that one event, not the whole log (ADR-0121). Correct because the log is
 * append-only: a kept fold is a prefix of the thread, and `extendThread` of the events after it
 * equals a fold of everything (property-tested in core). Bounded by bytes like the render cache
 * (ADR-0050's rule: least recently used first, and the absence of a thread is never kept). One
 * per owner of loads (an engine, an ingest, a `createCompactor`); nothing at module level.
 */
export class ThreadFoldCache {
  /** Insertion order is recency: the least recently loaded thread first. */
  readonly #folds = new Map<string, KeptFold>();
  readonly #maxBytes: number;
  #bytes = 0;
  #hits = 0;
  #extended = 0;
  #rebuilds = 0;
  #eventsRead = 0;
  #evictions = 0;

  /** @param options - The memory bound; a non-finite or non-positive `maxBytes` keeps nothing. */
  constructor(options: ThreadFoldCacheOptions = {}) {
    const maxBytes = options.maxBytes ?? DEFAULT_THREAD_FOLD_CACHE_BYTES;
    this.#maxBytes = Number.isFinite(maxBytes) && maxBytes > 0 ? maxBytes : 0;
  }

  /**
   * The thread folded up to the log's current end: the kept fold extended with the events after it
   * (one page read from its version), or the whole log folded on a miss.
   *
   * @param events - The event store to read.
   * @param tenantId - The owning tenant (part of the key).
   * @param threadId - The thread.
   * @param hiddenBy - The thread's committed plan, if the caller read it first (see {@link loadFold}).
   * @returns The folded thread (never mutated afterwards; later loads return new objects).
   * @throws NotFoundError for an unknown thread (nothing is kept for it).
   */
  async load(
    events: EventStore,
    tenantId: string,
    threadId: string,
    hiddenBy?: CompactionPlan | null,
  ): Promise<Thread> {
    return (await this.loadFold(events, tenantId, threadId, hiddenBy)).thread;
  }

  /**
   * {@link load}, with what the fold keeps besides the thread (the log's service records: the
   * latest registration, the last conversation seq, the plan versions logged).
   *
   * @param events - The event store to read.
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param hiddenBy - The thread's committed plan, read before this load: the messages it hides
   *   (summarized, dropped, externalized) are kept in compact form, their content deflated and read
   *   back on demand (ADR-0285). The thread is equal either way; only its memory differs.
   * @returns The fold (never mutated afterwards).
   * @throws NotFoundError for an unknown thread.
   */
  async loadFold(
    events: EventStore,
    tenantId: string,
    threadId: string,
    hiddenBy?: CompactionPlan | null,
  ): Promise<ThreadFold> {
    const key = `${tenantId}\u0000${threadId}`;
    const kept = this.#folds.get(key);
    if (kept) {
      const fresh = await readFrom(events, tenantId, threadId, kept.fold.thread.version + 1);
      this.#eventsRead += fresh.length;
      if (fresh.length === 0) {
        this.#hits += 1;
        const compacted = compactHidden(kept, hiddenBy);
        if (compacted === kept) this.#touch(key, kept);
        else this.#keep(key, compacted);
        return compacted.fold;
      }
      this.#extended += 1;
      const fold = extendThread(kept.fold, fresh);
      const next = compactHidden({ ...kept, fold, bytes: kept.bytes + eventBytes(fresh) }, hiddenBy);
      this.#keep(key, next);
      return next.fold;
    }
    const all = await events.readAll(tenantId, threadId);
    if (all.length === 0) throw new NotFoundError('thread', threadId);
    this.#eventsRead += all.length;
    this.#rebuilds += 1;
    const next = compactHidden(
      { fold: foldThreadEvents(all), bytes: eventBytes(all), compacted: 0 },
      this.#maxBytes > 0 ? hiddenBy : undefined,
    );
    this.#keep(key, next);
    return next.fold;
  }

  /** A snapshot of the counters and of the memory held. */
  get stats(): ThreadFoldCacheStats {
    return {
      hits: this.#hits,
      extended: this.#extended,
      rebuilds: this.#rebuilds,
      eventsRead: this.#eventsRead,
      bytes: this.#bytes,
      maxBytes: this.#maxBytes,
      threads: this.#folds.size,
      evictions: this.#evictions,
      compactedMessages: [...this.#folds.values()].reduce((sum, kept) => sum + kept.compacted, 0),
    };
  }

  /** Forget every thread. */
  clear(): void {
    this.#folds.clear();
    this.#bytes = 0;
  }

  #touch(key: string, kept: KeptFold): void {
    this.#folds.delete(key);
    this.#folds.set(key, kept);
  }

  /** Keep `next` as the key's fold unless a concurrent load already kept a newer one. */
  #keep(key: string, next: KeptFold): void {
    const current = this.#folds.get(key);
    if (current && current.fold.thread.version > next.fold.thread.version) return;
    if (current) {
      this.#folds.delete(key);
      this.#bytes -= current.bytes;
    }
    if (next.bytes > this.#maxBytes) return;
    this.#folds.set(key, next);
    this.#bytes += next.bytes;
    for (const [oldKey, old] of this.#folds) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#folds.delete(oldKey);
      this.#bytes -= old.bytes;
      this.#evictions += 1;
    }
  }
}

/** Every event from `fromSeq` on, page by page. */
async function readFrom(
  events: EventStore,
  tenantId: string,
  threadId: string,
  fromSeq: number,
): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let next: number | null = fromSeq;
  while (next !== null) {
    const page = await events.read(tenantId, threadId, { fromSeq: next });
    out.push(...page.events);
    next = page.nextSeq;
  }
  return out;
}

/** What folding these events adds to a kept fold: each message (its own copy) and its id. */
function eventBytes(events: readonly StoredEvent[]): number {
  let bytes = 0;
  for (const event of events) {
    if (event.type !== 'message.appended') continue;
    bytes += approximateBytes(event.message) + FOLDED_MESSAGE_BYTES + ID_SET_ENTRY_BYTES;
  }
  return bytes;
}

/** What {@link eventBytes} charged for a message now folded (the same estimate, from the folded copy). */
function foldedMessageBytes(message: ThreadMessage): number {
  const { seq: _seq, index: _index, turn: _turn, ...appended } = message;
  return approximateBytes(appended) + FOLDED_MESSAGE_BYTES + ID_SET_ENTRY_BYTES;
}

function planStamp(plan: CompactionPlan): string {
  return `${plan.version}\u0000${plan.basedOnSeq}\u0000${plan.createdAt}`;
}

/**
 * The kept fold with the messages `plan` hides in compact form (ADR-0285): a pass over the messages
 * only when the plan changed since the last pass; already compacted messages stay as they are.
 */
function compactHidden(kept: KeptFold, plan: CompactionPlan | null | undefined): KeptFold {
  if (!plan) return kept;
  const stamp = planStamp(plan);
  if (kept.compactedFor === stamp) return kept;
  const { thread } = kept.fold;
  const result = compactMessages(thread.messages, idsHiddenBy(plan), foldedMessageBytes);
  if (result.compacted === 0) return { ...kept, compactedFor: stamp };
  return {
    fold: { ...kept.fold, thread: { ...thread, messages: result.messages } },
    bytes: kept.bytes - result.bytesBefore + result.bytesAfter + result.compacted * ID_SET_ENTRY_BYTES,
    compactedFor: stamp,
    compacted: kept.compacted + result.compacted,
  };
}

/**
 * A fold cache to keep between loads.
 *
 * @param options - The memory bound.
 * @returns A new, empty cache.
 */
export function createThreadFoldCache(options: ThreadFoldCacheOptions = {}): ThreadFoldCache {
  return new ThreadFoldCache(options);
}
