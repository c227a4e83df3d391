import { ownersSharedPerRecord, type PlannedAction } from './normalize.js';
import { recordParts } from './record-parts.js';
import type { CompactionRecord } from './records.js';

/**
 * A group of ids with one owner (ADR-0455): each id points at a slot, the owner object its record was
 * added with (one object for all of a record's ids), and the slot is its own owner until a merged record
 * takes it over (`repointed`).
 */
type Slot = PlannedAction;

/** The maps the holding version owns. */
interface Maps {
  /** id → slot. */
  readonly ids: Map<string, Slot>;
  /** Slots a merged record took over → their owner now. */
  readonly repointed: Map<Slot, PlannedAction>;
  /** The slots of each record a derive added (every id it owns is in one); the first version's are read lazily. */
  readonly slotsOf: Map<CompactionRecord, readonly Slot[]>;
  /** Whether the first version's map gave each record one owner object for all its ids. */
  readonly sharedPerRecord: boolean;
}

/** What differs from the version read through (undefined: none here; for `owners`, not taken over). */
interface Differences {
  readonly ids: Map<string, Slot | undefined>;
  readonly owners: Map<Slot, PlannedAction | undefined>;
  readonly slotsOf: Map<CompactionRecord, readonly Slot[] | undefined>;
}

/** What a version holds: the shared maps themselves, or what differs from the version it reads through. */
type Holding =
  | { readonly kind: 'map'; readonly maps: Maps }
  | ({ readonly kind: 'diff'; readonly through: VersionedActions } & Differences);

/**
 * One version of a plan's owner map (message id → the record that owns it) that shares its entries with
 * the versions it was derived from or into (ADR-0385). Exactly one version of a family holds the map; every
 * other holds only the ids whose owners differ from a neighbour's, and reads through it. Deriving a version
 * moves the map to it ("rerooting", Baker's persistent arrays): the cost is the ids that change, not the
 * ids the plan owns, so a planning step that adds a few records to a plan hiding 100,000 messages does not
 * copy or walk those 100,000 entries. Every version keeps answering as it did when it was made.
 *
 * Ids point at slots, and slots at owners (ADR-0455): a merged summary block that absorbs the blocks it
 * replaces points their slots at itself, so an edit costs the ids that are new to it, not the tens of
 * thousands of ids a consolidating merge names again.
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
   * A first version holding a copy of `map`.
   *
   * @param map - The owners (copied, not kept).
   * @returns The version.
   */
  static holding(map: ReadonlyMap<string, PlannedAction>): VersionedActions {
    const maps: Maps = {
      ids: new Map(map),
      repointed: new Map(),
      slotsOf: new Map(),
      sharedPerRecord: ownersSharedPerRecord(map),
    };
    return new VersionedActions({ kind: 'map', maps }, map.size);
  }

  /**
   * A new version: `from`'s owners without the ids of the `removed` records, then each id of `added` owned
   * by its entry's owner. `from` keeps answering as before (it reads through the new version from now on).
   * An added record made of parts (`recordParts`, ADR-0455) takes over the slots of the parts `removed`
   * holds, and reads only the ids of its other parts. Undefined, with `from` unchanged, when an added id
   * has an owner that is not removed (a record `from` keeps, or an earlier added entry, names it): that
   * edit needs a full normalization.
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
    const base = from instanceof VersionedActions ? from : VersionedActions.holding(from);
    const maps = base.#takeMap();
    // What each changed entry was before this step: `base` reads through the new version with them.
    const differences: Differences = { ids: new Map(), owners: new Map(), slotsOf: new Map() };
    const setSlotsOf = (record: CompactionRecord, slots: readonly Slot[] | undefined) => {
      if (!differences.slotsOf.has(record)) differences.slotsOf.set(record, maps.slotsOf.get(record));
      if (slots === undefined) maps.slotsOf.delete(record);
      else maps.slotsOf.set(record, slots);
    };
    const repoint = (slot: Slot, owner: PlannedAction | undefined) => {
      if (!differences.owners.has(slot)) differences.owners.set(slot, maps.repointed.get(slot));
      if (owner === undefined || owner === slot) maps.repointed.delete(slot);
      else maps.repointed.set(slot, owner);
    };
    const undo = (): undefined => {
      for (const [id, slot] of differences.ids) {
        if (slot === undefined) maps.ids.delete(id);
        else maps.ids.set(id, slot);
      }
      for (const [slot, owner] of differences.owners) {
        if (owner === undefined) maps.repointed.delete(slot);
        else maps.repointed.set(slot, owner);
      }
      for (const [record, slots] of differences.slotsOf) {
        if (slots === undefined) maps.slotsOf.delete(record);
        else maps.slotsOf.set(record, slots);
      }
      return undefined;
    };
    const ownerNow = (slot: Slot) => maps.repointed.get(slot) ?? slot;
    // Slots first: a removed part an added record was made of points at the added record as a whole.
    const absorbed = new Set<CompactionRecord>();
    const fresh: { owner: PlannedAction; ids: readonly (readonly string[])[] }[] = [];
    for (const { ids, owner } of added) {
      const slots: Slot[] = [owner];
      const read: (readonly string[])[] = [];
      let conflict = false;
      const take = (part: CompactionRecord) => {
        const partSlots = removed.has(part) ? slotsOfRecord(maps, part) : undefined;
        if (partSlots !== undefined) {
          // Taken whole twice: two added records name its ids.
          if (absorbed.has(part)) conflict = true;
          absorbed.add(part);
          for (const slot of partSlots) {
            repoint(slot, owner);
            slots.push(slot);
          }
          return;
        }
        const parts = recordParts(part);
        if (parts === undefined) read.push(part.span.messageIds);
        else for (const inner of parts) take(inner);
      };
      const parts = recordParts(owner.record);
      if (parts === undefined) read.push(ids);
      else for (const part of parts) take(part);
      if (conflict) return undo();
      setSlotsOf(owner.record, slots);
      fresh.push({ owner, ids: read });
    }
    let size = base.#size;
    for (const { owner, ids: lists } of fresh) {
      for (const ids of lists) {
        for (const id of ids) {
          const was = maps.ids.get(id);
          const wasOwner = was === undefined ? undefined : ownerNow(was);
          // Already this record's: an id two of its parts name.
          if (wasOwner === owner) continue;
          if (wasOwner !== undefined && !removed.has(wasOwner.record)) return undo();
          if (!differences.ids.has(id)) differences.ids.set(id, was);
          maps.ids.set(id, owner);
          if (was === undefined) size += 1;
        }
      }
    }
    for (const record of removed) {
      if (!absorbed.has(record)) {
        for (const id of record.span.messageIds) {
          const was = maps.ids.get(id);
          // Still the removed record's: no added record took it over.
          if (was === undefined || ownerNow(was).record !== record) continue;
          if (!differences.ids.has(id)) differences.ids.set(id, was);
          maps.ids.delete(id);
          size -= 1;
        }
      }
      setSlotsOf(record, undefined);
    }
    const next = new VersionedActions({ kind: 'map', maps }, size);
    base.#holding = { kind: 'diff', through: next, ...differences };
    return next;
  }

  /** Move the shared maps to this version (the versions on the way read through it afterwards). */
  #takeMap(): Maps {
    const holding = this.#holding;
    if (holding.kind === 'map') return holding.maps;
    const maps = holding.through.#takeMap();
    const back: Differences = { ids: new Map(), owners: new Map(), slotsOf: new Map() };
    for (const [id, slot] of holding.ids) {
      back.ids.set(id, maps.ids.get(id));
      if (slot === undefined) maps.ids.delete(id);
      else maps.ids.set(id, slot);
    }
    for (const [slot, owner] of holding.owners) {
      back.owners.set(slot, maps.repointed.get(slot));
      if (owner === undefined) maps.repointed.delete(slot);
      else maps.repointed.set(slot, owner);
    }
    for (const [record, slots] of holding.slotsOf) {
      back.slotsOf.set(record, maps.slotsOf.get(record));
      if (slots === undefined) maps.slotsOf.delete(record);
      else maps.slotsOf.set(record, slots);
    }
    holding.through.#holding = { kind: 'diff', through: this, ...back };
    this.#holding = { kind: 'map', maps };
    return maps;
  }

  get size(): number {
    return this.#size;
  }

  get(id: string): PlannedAction | undefined {
    const slot = this.#slotOf(id);
    return slot === undefined ? undefined : this.#ownerOf(slot);
  }

  has(id: string): boolean {
    return this.#slotOf(id) !== undefined;
  }

  #slotOf(id: string): Slot | undefined {
    let version: VersionedActions = this;
    for (;;) {
      const holding = version.#holding;
      if (holding.kind === 'map') return holding.maps.ids.get(id);
      if (holding.ids.has(id)) return holding.ids.get(id);
      version = holding.through;
    }
  }

  #ownerOf(slot: Slot): PlannedAction {
    let version: VersionedActions = this;
    for (;;) {
      const holding = version.#holding;
      if (holding.kind === 'map') {
        const repointed = holding.maps.repointed;
        return repointed.size === 0 ? slot : (repointed.get(slot) ?? slot);
      }
      if (holding.owners.has(slot)) return holding.owners.get(slot) ?? slot;
      version = holding.through;
    }
  }

  /** Every entry of this version, read through the differences (a walk of the whole map). */
  *entries(): MapIterator<[string, PlannedAction]> {
    const decided = new Map<string, Slot | undefined>();
    let version: VersionedActions = this;
    for (;;) {
      const holding = version.#holding;
      if (holding.kind === 'map') {
        for (const [id, slot] of holding.maps.ids) if (!decided.has(id)) yield [id, this.#ownerOf(slot)];
        break;
      }
      for (const [id, slot] of holding.ids) if (!decided.has(id)) decided.set(id, slot);
      version = holding.through;
    }
    for (const [id, slot] of decided) if (slot !== undefined) yield [id, this.#ownerOf(slot)];
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

/**
 * The slots holding a record's ids in the holding version: as a derive added it, else (a record of the
 * first version's map) its one owner object when that map shared one per record, else each distinct slot
 * among its ids. Undefined when it owns none of them.
 */
function slotsOfRecord(maps: Maps, record: CompactionRecord): readonly Slot[] | undefined {
  const known = maps.slotsOf.get(record);
  if (known !== undefined) return known;
  const ids = record.span.messageIds;
  if (maps.sharedPerRecord) {
    const slot = ids.length > 0 ? maps.ids.get(ids[0]!) : undefined;
    return slot === undefined ? undefined : [slot];
  }
  const slots = new Set<Slot>();
  for (const id of ids) {
    const slot = maps.ids.get(id);
    if (slot !== undefined) slots.add(slot);
  }
  return slots.size === 0 ? undefined : [...slots];
}
