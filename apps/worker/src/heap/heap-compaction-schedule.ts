/**
 * The `when-fragmented` heap compaction mode's state machine (ADR-0395), free of V8 and of the
 * clock so it can be driven step by step: the process wiring (`heap-compaction.ts`) feeds it the
 * full collections a `PerformanceObserver` reports and applies the flag it asks for.
 *
 * Two states:
 * - idle: `--compact-on-every-full-gc` off; V8's own heuristics. After each full collection the old
 *   space's unused committed bytes are read; when they are at least {@link FRAGMENTATION_MIN_SLACK_BYTES}
 *   and {@link FRAGMENTATION_MIN_SLACK_RATIO} of what the old space holds, and the last compaction
 *   was at least the interval ago, the flag goes on (armed);
 * - armed: the flag is on until a full collection that started after it was set has been seen (that
 *   one compacted), then it goes off again (idle).
 * So the full-collection pause that moves every live object happens at most once per interval, and
 * only when the pages it would give back are worth it.
 */

/** Below this many unused committed old-space bytes a compaction gives back too little to pay its pause. */
export const FRAGMENTATION_MIN_SLACK_BYTES = 16 * 1024 * 1024;
/** Unused committed old-space bytes, as a share of the used ones, from which the old space counts as fragmented. */
export const FRAGMENTATION_MIN_SLACK_RATIO = 0.25;

/** What the old space holds right after a full collection. */
export interface OldSpaceReading {
  /** Bytes of pages the old space has committed. */
  committedBytes: number;
  /** Bytes live objects use in them. */
  usedBytes: number;
}

/** A full (mark-compact) collection as `perf_hooks` reports it, on the performance timeline (ms). */
export interface FullCollection {
  startTime: number;
  duration: number;
}

/** What the schedule did after a full collection, for the entry's log. */
export type HeapCompactionEvent =
  | { kind: 'armed'; slackBytes: number; usedBytes: number }
  | { kind: 'compacted'; pauseMs: number; slackBytesBefore: number; slackBytesAfter: number };

export interface HeapCompactionScheduleOptions {
  /** At least this long between two compactions, ms. */
  intervalMs: number;
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

  constructor(private readonly options: HeapCompactionScheduleOptions) {}

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
    if (now - this.lastCompactedAt < this.options.intervalMs) return undefined;
    const oldSpace = this.options.readOldSpace();
    const slack = slackOf(oldSpace);
    if (slack < FRAGMENTATION_MIN_SLACK_BYTES || slack < oldSpace.usedBytes * FRAGMENTATION_MIN_SLACK_RATIO)
      return undefined;
    this.options.setCompactOnEveryFullGc(true);
    this.armedAt = now;
    this.slackWhenArmed = slack;
    return { kind: 'armed', slackBytes: slack, usedBytes: oldSpace.usedBytes };
  }
}

function slackOf(oldSpace: OldSpaceReading): number {
  return Math.max(0, oldSpace.committedBytes - oldSpace.usedBytes);
}
