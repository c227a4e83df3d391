import type { PlannedAction } from './normalize.js';
import type { CompactionRecord } from './records.js';

/** What a version holds: the shared map itself, or what differs from the version it reads through. */
type Holding =
  | { readonly kind: 'map'; readonly map: Map<string, PlannedAction> }
  | {
      readonly kind: 'diff';
      readonly through: VersionedActions;
      /** id → this version's owner (undefined: the id has none here). */
      readonly differences: Map<string, PlannedAction | undefined>;
    };

/**
 * One version of a plan's owner map (message id → the record that owns it) that shares its entries with
 * the versions it was derived from or into (ADR-0385). Exactly one version of a family holds the map; every
 * other holds only the ids whose owners differ from a neighbour's, and reads through it. Deriving a version
 * moves the map to it ("rerooting", Baker's persistent arrays): the cost is the ids that change, not the
 * ids the plan owns, so a planning step that adds a few records to a plan hiding 100,000 messages does not
 * copy or walk those 100,000 entries. Every version keeps answering as it did when it was made.
 *
 * Reads do not move the map: the newest version (the one the planner reads next) holds it, an older
 * version reads through the few differences in between. Iteration is for rare whole-map readers.
 */
export class VersionedActions implements ReadonlyMap<string, PlannedAction> {
  #holding: Holding;
  #size: number;

  private constructor(holding: Holding, size: number) {
    this.#holding = holding;
    this.#size = size;
  }

  /**
   * A first version holding `map` (taken over: the caller no longer writes to it).
   *
   * @param map - The owners.
   * @returns The version.
   */
  static holding(map: Map<string, PlannedAction>): VersionedActions {
    return new VersionedActions({ kind: 'map', map }, map.size);
  }

  /**
   * A new version: `from`'s owners without the ids of the `removed` records, then each id of `added` owned
   * by its entry's owner. `from` keeps answering as before (it reads through the new version from now on).
   * Undefined, with `from` unchanged, when an added id has an owner that is not removed (a record `from`
   * keeps, or an earlier added entry, names it): that edit needs a full normalization.
   *
   * @param from - The version derived from (a plain map is copied first: it may be someone else's).
   * @param removed - The records taken out; each owns, in `from`, every id it names.
   * @param added - Each added record's ids and their owner (one object for all of a record's ids); none
   *   of these records is among `removed`.
   * @returns The new version, or undefined on an id owned twice.
   */
  static derive(
    from: ReadonlyMap<string, PlannedAction>,
    removed: ReadonlySet<CompactionRecord>,
    added: readonly { readonly ids: readonly string[]; readonly owner: PlannedAction }[],
  ): VersionedActions | undefined {
    const base =
      from instanceof VersionedActions
        ? from
        : VersionedActions.holding(new Map(from as ReadonlyMap<string, PlannedAction>));
    const map = base.#takeMap();
    // The owner before this step of every id it changes: `base` reads through the new version with them.
    // Added first, so an id a merged block takes over from a removed one is written once, not deleted first.
    const differences = new Map<string, PlannedAction | undefined>();
    let size = map.size;
    for (const { ids, owner } of added) {
      for (const id of ids) {
        const was = map.get(id);
        if (was !== undefined && !removed.has(was.record)) {
          for (const [changed, before] of differences) {
            if (before === undefined) map.delete(changed);
            else map.set(changed, before);
          }
          return undefined;
        }
        differences.set(id, was);
        map.set(id, owner);
        if (was === undefined) size += 1;
      }
    }
    for (const record of removed) {
      for (const id of record.span.messageIds) {
        const was = map.get(id);
        // Still the removed record's: no added record took it over.
        if (was === undefined || was.record !== record) continue;
        differences.set(id, was);
        map.delete(id);
        size -= 1;
      }
    }
    const next = new VersionedActions({ kind: 'map', map }, size);
    base.#holding = { kind: 'diff', through: next, differences };
    return next;
  }

  /** Move the shared map to this version (the versions on the way read through it afterwards). */
  #takeMap(): Map<string, PlannedAction> {
    const holding = this.#holding;
    if (holding.kind === 'map') return holding.map;
    const map = holding.through.#takeMap();
    const back = new Map<string, PlannedAction | undefined>();
    for (const [id, owner] of holding.differences) {
      back.set(id, map.get(id));
      if (owner === undefined) map.delete(id);
      else map.set(id, owner);
    }
    holding.through.#holding = { kind: 'diff', through: this, differences: back };
    this.#holding = { kind: 'map', map };
    return map;
  }

  get size(): number {
    return this.#size;
  }

  get(id: string): PlannedAction | undefined {
    let version: VersionedActions = this;
    for (;;) {
      const holding = version.#holding;
      if (holding.kind === 'map') return holding.map.get(id);
      if (holding.differences.has(id)) return holding.differences.get(id);
      version = holding.through;
    }
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Every entry of this version, read through the differences (a walk of the whole map). */
  *entries(): MapIterator<[string, PlannedAction]> {
    const decided = new Map<string, PlannedAction | undefined>();
    let version: VersionedActions = this;
    for (;;) {
      const holding = version.#holding;
      if (holding.kind === 'map') {
        for (const [id, owner] of holding.map) if (!decided.has(id)) yield [id, owner];
        break;
      }
      for (const [id, owner] of holding.differences) if (!decided.has(id)) decided.set(id, owner);
      version = holding.through;
    }
    for (const [id, owner] of decided) if (owner !== undefined) yield [id, owner];
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<PlannedAction> {
    for (const [, owner] of this.entries()) yield owner;
  }

  [Symbol.iterator](): MapIterator<[string, PlannedAction]> {
    return this.entries();
  }

  forEach(
    callback: (value: PlannedAction, key: string, map: ReadonlyMap<string, PlannedAction>) => void,
    thisArg?: unknown,
  ): void {
    for (const [id, owner] of this.entries()) callback.call(thisArg, owner, id, this);
  }
}
