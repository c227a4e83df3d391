import {
  approximateBytes,
  type CompactionPlan,
  isEditedPlan,
  type ThreadKind,
  type ThreadKindTally,
  type ThreadMessage,
  tallyThreadKind,
} from '@compactor/core';
import { dequal } from 'dequal';
import type { PlanResolution } from '../plan/resolve-plan.js';
import { indexToolExchanges, type ToolExchangeIndex } from '../plan/tool-exchanges.js';

/** What a memo reports to the cache that owns it. */
export interface MemoOwner {
  /** The memo grew by `bytes`; the owner may evict (other threads first, then this one's oldest). */
  grew(memo: ThreadRenderMemo, bytes: number): void;
  hit(): void;
  miss(): void;
  /** A structure (a plan's recall index, a plan resolution) was built from nothing. */
  built(kind: 'recall-index' | 'resolution'): void;
  /** A recall search was asked of a plan's index: `ran` when it searched, else answered from memory. */
  recallSearched(ran: boolean): void;
}

/**
 * Object-keyed memos: `placeholder` is a shortcut to pieces kept under their content key (a hit
 * counts as a piece served); `clear-entries` indexes a clear record's entries (not a piece, not
 * counted). Either is charged a slot per entry, not the piece again.
 */
export type ObjectSpace = 'placeholder' | 'clear-entries';
const COUNTED_SPACES: ReadonlySet<ObjectSpace> = new Set(['placeholder']);
const OBJECT_ENTRY_BYTES = 64;
/** Per message: a resolution's two action slots, and the exchange index's maps and exchange objects. */
const RESOLUTION_BYTES_PER_MESSAGE = 32;
const EXCHANGE_BYTES_PER_MESSAGE = 160;
/** Stands for "no plan" as a resolution key. */
const NO_PLAN: object = Object.freeze({});
/**
 * Distinct plans remembered per (version, basedOnSeq, createdAt): the committed one and the few
 * candidates a planner measures with the same stamp. A plan object maps to the first equal one.
 */
const PLANS_PER_STAMP = 4;
/** Stamps remembered per thread (the committed plan's, and a check's candidates'). */
const PLAN_STAMPS = 4;
/**
 * Plans whose resolutions are kept per thread: the committed plan's (extended as messages arrive) and a
 * few of a check's candidates. A planner measures a dozen candidates per check; kept by a weak map, each
 * stayed charged after its plan was gone, so a long thread's memo went over its bound within one check and
 * shed every piece (issue #18).
 */
const RESOLVED_PLANS = 2;

/** Kinds of piece kept by content key, each in its own map (no key prefixes to build on a hit). */
export type PieceSpace = 'message' | 'raw-result' | 'text-result' | 'synthetic' | 'system' | 'truncated';
/** The order a thread over budget gives up its pieces in: the cheapest to make again first. */
const SHED_ORDER: readonly PieceSpace[] = [
  'truncated',
  'system',
  'synthetic',
  'text-result',
  'raw-result',
  'message',
];

interface Remembered {
  value: unknown;
  bytes: number;
}

interface RememberedPlan {
  plan: CompactionPlan;
  bytes: number;
}

interface RememberedResolution {
  resolution: PlanResolution;
  bytes: number;
}

interface ResolvedPlan {
  byAgent: Map<string, RememberedResolution>;
  /** Resolved again after its first resolution (a committed plan, measured or rendered call after call). */
  reused: boolean;
}

/**
 * Everything memoized for one (tenant, thread, provider, tokenizer, render format): formatted and
 * counted pieces by content key, object-keyed shortcuts to them, the thread's tool-exchange index
 * and its plan resolutions. Correct because the log is append-only: a message id's content never
 * changes. Its size is charged to the owning RenderCache, which may drop its oldest entries.
 */
export class ThreadRenderMemo {
  /** Insertion order is age: the oldest entries go first when this thread alone is over budget. */
  readonly #spaces = new Map<PieceSpace, Map<string, Remembered>>(
    SHED_ORDER.map((space) => [space, new Map()]),
  );
  readonly #owner: MemoOwner;
  #objects = new Map<ObjectSpace, WeakMap<object, unknown>>();
  #cleared = new WeakMap<object, WeakMap<object, unknown>>();
  /** Insertion order is recency: the least recently resolved plan goes first. */
  #resolutions = new Map<object, ResolvedPlan>();
  #exchanges: ToolExchangeIndex | undefined;
  #kind: ThreadKindTally | undefined;
  #recall = new WeakMap<object, unknown>();
  /** Plan objects already mapped to their canonical plan (itself, or an equal one seen first). */
  #canonical = new WeakMap<CompactionPlan, CompactionPlan>();
  /** Canonical plans by stamp, the most recently used stamp last. */
  #plansByStamp = new Map<string, RememberedPlan[]>();
  #entryBytes = 0;
  #detached = false;
  /** Object shortcuts, resolutions and the exchange index: dropped together, never one by one. */
  #structureBytes = 0;

  constructor(owner: MemoOwner) {
    this.#owner = owner;
  }

  /** Bytes this memo holds, as charged to its cache. */
  get bytes(): number {
    return this.#entryBytes + this.#structureBytes;
  }

  /** Dropped from its cache: a render still using it finishes, but its growth is charged to nobody. */
  get detached(): boolean {
    return this.#detached;
  }

  detach(): void {
    this.#detached = true;
  }

  /**
   * The plan object every memo here is keyed by: the first plan seen with the same content. A plan
   * store that hands out a fresh copy of the same committed plan on every read (the embedded one
   * clones) then reuses the plan's normalization, resolutions and recall index instead of
   * rebuilding them per render (ADR-0120). Plans are compared by content, never by
   * version alone: a planner's candidates may share the committed plan's version and basedOnSeq,
   * and a candidate maps to a committed plan only when the two are equal.
   *
   * @param plan - The caller's plan object (not modified; callers never mutate plans).
   * @returns The canonical equal plan (possibly `plan` itself).
   */
  canonicalPlan(plan: CompactionPlan | null): CompactionPlan | null {
    if (plan === null) return null;
    // A planner's candidate is a new object made in this process, not a store's copy: compared by content
    // with the plans of its stamp and charged whole (a long thread's plan names every hidden id), a
    // check's dozen candidates filled the memo and shed every piece (issue #18).
    if (isEditedPlan(plan)) return plan;
    const known = this.#canonical.get(plan);
    if (known !== undefined) return known;
    const stamp = `${plan.threadId}\u0000${plan.version}\u0000${plan.basedOnSeq}\u0000${plan.createdAt}`;
    let plans = this.#plansByStamp.get(stamp);
    if (plans) this.#plansByStamp.delete(stamp);
    else plans = [];
    // Re-inserted: the most recently used stamp.
    this.#plansByStamp.set(stamp, plans);
    let canonical = plans.find((candidate) => dequal(candidate.plan, plan))?.plan;
    if (canonical === undefined) {
      canonical = plan;
      const bytes = approximateBytes(plan);
      plans.push({ plan, bytes });
      let freed = 0;
      if (plans.length > PLANS_PER_STAMP) freed += plans.shift()!.bytes;
      if (this.#plansByStamp.size > PLAN_STAMPS) {
        const [oldest, dropped] = this.#plansByStamp.entries().next().value as [string, RememberedPlan[]];
        this.#plansByStamp.delete(oldest);
        for (const entry of dropped) freed += entry.bytes;
      }
      this.#growStructure(bytes - freed);
    }
    this.#canonical.set(plan, canonical);
    return canonical;
  }

  /**
   * The value remembered under `key` in `space` if there is one and `reusable` accepts it (a hit),
   * else `make()`'s, remembered (a miss).
   */
  remember<T>(space: PieceSpace, key: string, make: () => T, reusable?: (cached: T) => boolean): T {
    const entries = this.#spaces.get(space)!;
    const known = entries.get(key);
    if (known !== undefined && (reusable === undefined || reusable(known.value as T))) {
      this.#owner.hit();
      return known.value as T;
    }
    this.#owner.miss();
    const value = make();
    const bytes = approximateBytes(key) + approximateBytes(value);
    const previous = known?.bytes ?? 0;
    // Re-inserted: the entry is now the youngest.
    entries.delete(key);
    entries.set(key, { value, bytes });
    this.#entryBytes += bytes - previous;
    this.#owner.grew(this, bytes - previous);
    return value;
  }

  /**
   * A memo by object identity (a plan record, a result part). A piece shortcut's hit counts; a
   * miss does not, since `make` falls through to `remember`, which counts it.
   */
  rememberByObject<T>(space: ObjectSpace, owner: object, make: () => T): T {
    let byOwner = this.#objects.get(space);
    if (!byOwner) {
      byOwner = new WeakMap();
      this.#objects.set(space, byOwner);
    }
    if (byOwner.has(owner)) {
      if (COUNTED_SPACES.has(space)) this.#owner.hit();
      return byOwner.get(owner) as T;
    }
    const value = make();
    byOwner.set(owner, value);
    this.#growStructure(OBJECT_ENTRY_BYTES);
    return value;
  }

  /**
   * A piece shortcut by a pair of objects (a clear record and one result part it covers; a
   * summary record and the role it is shown in). Hits count, as above.
   */
  rememberByObjects<T>(first: object, second: object, make: () => T): T {
    let bySecond = this.#cleared.get(first);
    if (!bySecond) {
      bySecond = new WeakMap();
      this.#cleared.set(first, bySecond);
    }
    if (bySecond.has(second)) {
      this.#owner.hit();
      return bySecond.get(second) as T;
    }
    const value = make();
    bySecond.set(second, value);
    this.#growStructure(OBJECT_ENTRY_BYTES);
    return value;
  }

  /** The plan's resolution for `agent`, extended from the one remembered for the same plan object. */
  resolution(
    plan: CompactionPlan | null,
    agent: string,
    resolve: (previous: PlanResolution | undefined) => PlanResolution,
  ): PlanResolution {
    const key = plan ?? NO_PLAN;
    let resolved = this.#resolutions.get(key);
    if (resolved) {
      this.#resolutions.delete(key);
      resolved.reused = true;
    } else resolved = { byAgent: new Map(), reused: false };
    // Re-inserted: the most recently resolved plan.
    this.#resolutions.set(key, resolved);
    const freed = this.#evictResolutions(key);
    const previous = resolved.byAgent.get(agent);
    const resolution = resolve(previous?.resolution);
    if (resolution !== previous?.resolution) this.#owner.built('resolution');
    const bytes = RESOLUTION_BYTES_PER_MESSAGE * resolution.size;
    resolved.byAgent.set(agent, { resolution, bytes });
    this.#growStructure(bytes - (previous?.bytes ?? 0) - freed);
    return resolution;
  }

  /**
   * The recall index for a plan object (ADR-0111): `extend` adds what the thread gained since the
   * remembered one was built (or builds it from nothing) and returns the bytes it added, charged as
   * structure, so shedding drops it with the other shortcuts.
   */
  recallIndex<T extends { size: number }>(
    plan: CompactionPlan,
    key: string,
    create: () => T,
    extend: (index: T, fromMessage: number) => { bytes: number; added: number; toMessage: number },
  ): T {
    const known = this.#recall.get(plan) as { key: string; index: T; toMessage: number } | undefined;
    let entry = known;
    if (!entry || entry.key !== key) {
      entry = { key, index: create(), toMessage: 0 };
      this.#owner.built('recall-index');
    }
    const grown = extend(entry.index, entry.toMessage);
    // Appends the plan does not cover add nothing: still a hit.
    if (grown.added === 0 && known === entry) this.#owner.hit();
    else this.#owner.miss();
    entry.toMessage = grown.toMessage;
    this.#recall.set(plan, entry);
    this.#growStructure(grown.bytes);
    return entry.index;
  }

  /** Counts a recall search asked of a plan's index (run, or answered from memory). */
  recallSearched(ran: boolean): void {
    this.#owner.recallSearched(ran);
  }

  /**
   * The thread's kind (recall's `auto` placement follows it, ADR-0276), counted only over the messages
   * appended since the last render: a tool-free thread would otherwise be scanned whole on every render.
   */
  threadKind(messages: readonly ThreadMessage[]): ThreadKind {
    this.#kind = tallyThreadKind(this.#kind, messages);
    return this.#kind.kind;
  }

  /** The thread's tool-exchange index, extended by the messages appended since the last render. */
  toolExchanges(messages: readonly ThreadMessage[]): ToolExchangeIndex {
    const before = this.#exchanges?.size ?? 0;
    const index = indexToolExchanges(messages, this.#exchanges);
    this.#exchanges = index;
    // A rebuilt index (another thread version) starts from 0, so the charge can be negative.
    this.#growStructure(EXCHANGE_BYTES_PER_MESSAGE * (index.size - before));
    return index;
  }

  /**
   * Drop pieces (the cheapest to make again first, oldest first within each kind), then, if that is not enough, every shortcut, resolution and the
   * exchange index, until at least `bytes` are freed. Returns the bytes freed.
   */
  shed(bytes: number): number {
    let freed = 0;
    for (const entries of this.#spaces.values()) {
      for (const [key, entry] of entries) {
        if (freed >= bytes) break;
        entries.delete(key);
        this.#entryBytes -= entry.bytes;
        freed += entry.bytes;
      }
    }
    if (freed < bytes && this.#structureBytes > 0) {
      freed += this.#structureBytes;
      this.#structureBytes = 0;
      this.#objects = new Map();
      this.#cleared = new WeakMap();
      this.#recall = new WeakMap();
      this.#resolutions = new Map();
      this.#canonical = new WeakMap();
      this.#plansByStamp = new Map();
      this.#exchanges = undefined;
    }
    return freed;
  }

  /**
   * Keep at most `RESOLVED_PLANS` plans' resolutions. A plan resolved only once (a planner's candidate, each
   * derived from the one measured before it) goes first, the most recent such plan before the just-resolved
   * one, so a check's dozen candidates leave the oldest plans in place: the committed plan, which the next
   * call extends (then it is resolved again, and kept longest). Returns the bytes freed.
   */
  #evictResolutions(newest: object): number {
    let freed = 0;
    while (this.#resolutions.size > RESOLVED_PLANS) {
      let victim: object | undefined;
      for (const [key, resolved] of this.#resolutions) if (key !== newest && !resolved.reused) victim = key;
      victim ??= this.#resolutions.keys().next().value as object;
      for (const entry of this.#resolutions.get(victim)!.byAgent.values()) freed += entry.bytes;
      this.#resolutions.delete(victim);
    }
    return freed;
  }

  #growStructure(bytes: number): void {
    this.#structureBytes += bytes;
    this.#owner.grew(this, bytes);
  }
}
