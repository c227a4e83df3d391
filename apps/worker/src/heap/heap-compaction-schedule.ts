/**
 * The state machine of the modes that compact at chosen full collections (ADR-0395, ADR-0425), free
 * of V8 and of the clock so it can be driven step by step: the process wiring (`heap-compaction.ts`)
 * feeds it the full collections a `PerformanceObserver` reports and applies the flag it asks for.
 *
 * Two states:
 * - idle: `--compact-on-every-full-gc` off; V8's own heuristics. After each full collection the old
 *   generation is read and {@link compactionCalledFor} decides, under the mode's trigger, whether the
 *   next full collection should compact; if so the flag goes on (armed);
 * - armed: the flag is on until a full collection that started after it was set has been seen (that
 *   one compacted), then it goes off again (idle).
 * So a full-collection pause that moves every live object happens only when the trigger calls for it.
 */

/** Below this many unused committed old-space bytes a compaction gives back too little to pay its pause. */
export const FRAGMENTATION_MIN_SLACK_BYTES = 16 * 1024 * 1024;
/** Unused committed old-space bytes, as a share of the used ones, from which the old space counts as fragmented. */
export const FRAGMENTATION_MIN_SLACK_RATIO = 0.25;

/**
 * What the old generation (every heap space but the young generation's) holds right after a full
 * collection.
 */
export interface OldSpaceReading {
  /** Bytes of pages it has committed. */
  committedBytes: number;
  /** Bytes live objects use in them. */
  usedBytes: number;
}

/**
 * When an idle schedule arms:
 * - `interval` (`when-fragmented`, ADR-0395): the old generation is fragmented and the last compaction
 *   ended at least `intervalMs` ago;
 * - `budget` (`when-over-bounds`, ADR-0425): its committed bytes are over `budgetBytes` (the old
 *   generation measured when the process was ready, plus the byte bounds of its caches) and a compaction
 *   gives enough back; `budgetBytes` is undefined until the process has measured it (nothing arms).
 */
export type CompactionTrigger =
  | { kind: 'interval'; intervalMs: number }
  | { kind: 'budget'; budgetBytes: number | undefined };

/**
 * Whether the next full collection should compact, read after a full collection. Never for less than
 * {@link FRAGMENTATION_MIN_SLACK_BYTES} to give back. Over the budget, the live bytes decide: when they
 * are that much under it, compacting brings the heap back within it, so it is called for; when they are
 * not (the live heap itself has outgrown the budget), only a fragmented old generation (unused at least
 * {@link FRAGMENTATION_MIN_SLACK_RATIO} of used) is worth a pause, or every full collection would compact.
 *
 * @param trigger - The mode's trigger.
 * @param oldSpace - The old generation after the collection.
 * @param msSinceLastCompaction - Since the last compaction ended (infinite before the first).
 */
export function compactionCalledFor(
  trigger: CompactionTrigger,
  oldSpace: OldSpaceReading,
  msSinceLastCompaction: number,
): boolean {
  const slack = slackOf(oldSpace);
  if (slack < FRAGMENTATION_MIN_SLACK_BYTES) return false;
  const fragmented = slack >= oldSpace.usedBytes * FRAGMENTATION_MIN_SLACK_RATIO;
  if (trigger.kind === 'interval') return fragmented && msSinceLastCompaction >= trigger.intervalMs;
  if (trigger.budgetBytes === undefined || oldSpace.committedBytes <= trigger.budgetBytes) return false;
  return oldSpace.usedBytes + FRAGMENTATION_MIN_SLACK_BYTES <= trigger.budgetBytes || fragmented;
}

/** A full (mark-compact) collection as `perf_hooks` reports it, on the performance timeline (ms). */
export interface FullCollection {
  startTime: number;
  duration: number;
}

/** What the schedule did after a full collection, for the entry's log. */
export type HeapCompactionEvent =
  | { kind: 'armed'; slackBytes: number; usedBytes: number; committedBytes: number }
  | { kind: 'compacted'; pauseMs: number; slackBytesBefore: number; slackBytesAfter: number };

export interface HeapCompactionScheduleOptions {
  /** When an idle schedule arms. */
  trigger: CompactionTrigger;
  /** Turns `--compact-on-every-full-gc` on or off. */
  setCompactOnEveryFullGc: (on: boolean) => void;
  /** The old space right now (read after a full collection). */
  readOldSpace: () => OldSpaceReading;
}

export class HeapCompactionSchedule {
  private armedAt: number | undefined;
  private slackWhenArmed = 0;
  private lastCompactedAt = Number.NEGATIVE_INFINITY;
  private compactions = 0;
  private trigger: CompactionTrigger;

  constructor(private readonly options: HeapCompactionScheduleOptions) {
    this.trigger = options.trigger;
  }

  /**
   * Sets `when-over-bounds`'s budget (measured once the process is ready); ignored by an `interval` trigger.
   *
   * @param budgetBytes - Old-generation committed bytes above which a compaction is called for.
   */
  setBudget(budgetBytes: number): void {
    if (this.trigger.kind === 'budget') this.trigger = { kind: 'budget', budgetBytes };
  }

  /** Whether the flag is on, waiting for the full collection that compacts. */
  get armed(): boolean {
    return this.armedAt !== undefined;
  }

  /** Full collections run with the flag on so far. */
  get compactionCount(): number {
    return this.compactions;
  }

  /**
   * A full collection has ended.
   *
   * @param collection - Its start and duration (performance timeline).
   * @param now - The performance timeline now (the observer runs after the collection).
   * @returns What the schedule did, if anything.
   */
  fullCollectionObserved(collection: FullCollection, now: number): HeapCompactionEvent | undefined {
    if (this.armedAt !== undefined) {
      // Entries reach the observer in batches: one that started before the flag was set did not compact.
      if (collection.startTime < this.armedAt) return undefined;
      this.options.setCompactOnEveryFullGc(false);
      this.armedAt = undefined;
      this.lastCompactedAt = now;
      this.compactions += 1;
      return {
        kind: 'compacted',
        pauseMs: collection.duration,
        slackBytesBefore: this.slackWhenArmed,
        slackBytesAfter: slackOf(this.options.readOldSpace()),
      };
    }
    const oldSpace = this.options.readOldSpace();
    if (!compactionCalledFor(this.trigger, oldSpace, now - this.lastCompactedAt)) return undefined;
    this.options.setCompactOnEveryFullGc(true);
    this.armedAt = now;
    this.slackWhenArmed = slackOf(oldSpace);
    return {
      kind: 'armed',
      slackBytes: this.slackWhenArmed,
      usedBytes: oldSpace.usedBytes,
      committedBytes: oldSpace.committedBytes,
    };
  }
}

function slackOf(oldSpace: OldSpaceReading): number {
  return Math.max(0, oldSpace.committedBytes - oldSpace.usedBytes);
}
