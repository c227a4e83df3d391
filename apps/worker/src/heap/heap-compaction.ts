import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { z } from 'zod';
import {
  type CompactionTrigger,
  type HeapCompactionEvent,
  HeapCompactionSchedule,
  type OldSpaceReading,
} from './heap-compaction-schedule.js';

/**
 * How the servers' V8 heap is compacted (ADR-0355, ADR-0395, ADR-0425):
 * - `every-full-gc`: every full collection also compacts the old space, so the pages the
 *   byte-bounded caches leave partly used are given back and RSS follows what the heap holds; every
 *   full collection then pauses for as long as moving the whole live heap takes;
 * - `when-over-bounds`: V8's heuristics, and the same compaction at one full collection when the old
 *   generation's committed bytes are over a budget: what it held when the process was ready plus the
 *   byte bounds of the process's caches — so only as often as memory is actually over;
 * - `when-fragmented`: V8's heuristics, and the same compaction at one full collection when the old
 *   space is measured fragmented, at most once per interval (`COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS`);
 * - `v8-default`: V8's own heuristics (a full collection compacts only its most fragmented pages),
 *   and nothing is set: a flag given on the command line stays as given.
 */
export const HEAP_COMPACTION_MODES = [
  'every-full-gc',
  'when-over-bounds',
  'when-fragmented',
  'v8-default',
] as const;
export type HeapCompaction = (typeof HEAP_COMPACTION_MODES)[number];

/**
 * The ingest's and `compactor serve`'s default: requests wait out every pause, so the whole-heap one
 * comes only when the heap is over its budget (ADR-0395, ADR-0425).
 */
export const INGEST_HEAP_COMPACTION: HeapCompaction = 'when-over-bounds';
/** The worker's default: no request waits on its pauses (ADR-0395). */
export const WORKER_HEAP_COMPACTION: HeapCompaction = 'every-full-gc';
/** `when-fragmented`'s least time between two compactions, seconds (ADR-0395). */
export const DEFAULT_HEAP_COMPACTION_INTERVAL_SECONDS = 300;
const MAX_HEAP_COMPACTION_INTERVAL_SECONDS = 86_400;

/** The servers' heap setting, as configured. */
export interface HeapCompactionSetting {
  mode: HeapCompaction;
  /** `when-fragmented`'s least time between two compactions, ms (the other modes ignore it). */
  intervalMs: number;
}

/**
 * The variables, shared by the worker's and the ingest's configuration; each app has its own
 * default mode.
 *
 * @param defaultMode - The mode when COMPACTOR_HEAP_COMPACTION is unset or empty.
 */
export function heapCompactionEnvironment(defaultMode: HeapCompaction) {
  return {
    COMPACTOR_HEAP_COMPACTION: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .enum(HEAP_COMPACTION_MODES, { error: `must be one of ${HEAP_COMPACTION_MODES.join(', ')}` })
        .default(defaultMode),
    ),
    COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .string()
        .regex(/^\d+$/, `must be a whole number of seconds from 1 to ${MAX_HEAP_COMPACTION_INTERVAL_SECONDS}`)
        .transform(Number)
        .pipe(
          z
            .number()
            .int()
            .min(1, `must be a whole number of seconds from 1 to ${MAX_HEAP_COMPACTION_INTERVAL_SECONDS}`)
            .max(
              MAX_HEAP_COMPACTION_INTERVAL_SECONDS,
              `must be a whole number of seconds from 1 to ${MAX_HEAP_COMPACTION_INTERVAL_SECONDS}`,
            ),
        )
        .default(DEFAULT_HEAP_COMPACTION_INTERVAL_SECONDS),
    ),
  };
}

/** The setting from the parsed variables. */
export function heapCompactionSettingOf(values: {
  COMPACTOR_HEAP_COMPACTION: HeapCompaction;
  COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS: number;
}): HeapCompactionSetting {
  return {
    mode: values.COMPACTOR_HEAP_COMPACTION,
    intervalMs: values.COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS * 1000,
  };
}

/**
 * The setting from an environment, for a process that reads only these two variables (the benches).
 *
 * @param environment - The variables (`COMPACTOR_HEAP_COMPACTION`, `COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS`).
 * @param defaultMode - The mode when none is given.
 * @throws Error naming the variable when a value is invalid.
 */
export function heapCompactionSettingFrom(
  environment: Record<string, string | undefined>,
  defaultMode: HeapCompaction,
): HeapCompactionSetting {
  const parsed = z.object(heapCompactionEnvironment(defaultMode)).safeParse(environment);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.')} ${issue?.message}`);
  }
  return heapCompactionSettingOf(parsed.data);
}

/** The V8 flag `every-full-gc` sets. Not accepted in NODE_OPTIONS, hence set from the entry. */
export const COMPACT_ON_EVERY_FULL_GC_FLAG = '--compact-on-every-full-gc';

/** The heap setting applied to this process. */
export interface AppliedHeapCompaction {
  /** The V8 flags set at start (empty for `v8-default` and `when-fragmented`), to log. */
  v8Flags: string[];
  /** Where `when-over-bounds` and `when-fragmented` report arming and each compaction (nothing for the others). */
  onEvent(listener: (event: HeapCompactionEvent) => void): void;
  /**
   * Call once the process is ready (caches created, nothing served yet): reads the old generation's
   * used bytes as the baseline and, under `when-over-bounds`, compacts from then on when its committed
   * bytes are over baseline + `cacheBoundsBytes` (ADR-0425). Before the call that mode compacts nothing.
   *
   * @param cacheBoundsBytes - The byte bounds of the caches this process keeps, summed.
   * @returns The baseline and budget, to log.
   */
  setBudget(cacheBoundsBytes: number): HeapBudget;
  /** Stop observing collections (`when-over-bounds`, `when-fragmented`); the flag is left off. */
  stop(): void;
}

/** `when-over-bounds`'s budget as measured by {@link AppliedHeapCompaction.setBudget}. */
export interface HeapBudget {
  /** The old generation's used bytes when the process was ready. */
  baselineBytes: number;
  cacheBoundsBytes: number;
  /** baseline + bounds: the old generation's committed bytes above which the mode compacts. */
  budgetBytes: number;
}

/**
 * The old generation now: every heap space but the young generation's (which a full collection
 * empties and which compaction does not shrink).
 */
export function readOldGeneration(): OldSpaceReading {
  let committedBytes = 0;
  let usedBytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name.startsWith('new_')) continue;
    committedBytes += space.space_size;
    usedBytes += space.space_used_size;
  }
  return { committedBytes, usedBytes };
}

function budgetOf(cacheBoundsBytes: number): HeapBudget {
  const baselineBytes = readOldGeneration().usedBytes;
  return { baselineBytes, cacheBoundsBytes, budgetBytes: baselineBytes + cacheBoundsBytes };
}

/**
 * Apply the setting to this process. V8 reads the flag at each full collection, so setting it at
 * start (before the caches fill) is enough for `every-full-gc`; `when-over-bounds` and `when-fragmented`
 * turn it on and off from a `PerformanceObserver` of full collections. Process-wide, which is why only
 * the apps' entries call this, never a library.
 *
 * @param setting - The configured mode (and interval), or the mode alone (default interval).
 * @returns The flags set at start, and the schedule's events.
 */
export function applyHeapCompaction(setting: HeapCompactionSetting | HeapCompaction): AppliedHeapCompaction {
  const { mode, intervalMs } =
    typeof setting === 'string'
      ? { mode: setting, intervalMs: DEFAULT_HEAP_COMPACTION_INTERVAL_SECONDS * 1000 }
      : setting;
  if (mode === 'every-full-gc') {
    setFlagsFromString(COMPACT_ON_EVERY_FULL_GC_FLAG);
    return {
      v8Flags: [COMPACT_ON_EVERY_FULL_GC_FLAG],
      onEvent: () => {},
      setBudget: budgetOf,
      stop: () => {},
    };
  }
  if (mode === 'v8-default') return { v8Flags: [], onEvent: () => {}, setBudget: budgetOf, stop: () => {} };
  return startScheduled(
    mode === 'when-over-bounds'
      ? { kind: 'budget', budgetBytes: undefined }
      : { kind: 'interval', intervalMs },
  );
}

function startScheduled(trigger: CompactionTrigger): AppliedHeapCompaction {
  const listeners: Array<(event: HeapCompactionEvent) => void> = [];
  const schedule = new HeapCompactionSchedule({
    trigger,
    setCompactOnEveryFullGc: (on) =>
      setFlagsFromString(on ? COMPACT_ON_EVERY_FULL_GC_FLAG : '--no-compact-on-every-full-gc'),
    readOldSpace: readOldGeneration,
  });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const event = schedule.fullCollectionObserved(entry, performance.now());
      if (event) for (const listener of listeners) listener(event);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    v8Flags: [],
    onEvent: (listener) => listeners.push(listener),
    setBudget: (cacheBoundsBytes) => {
      const budget = budgetOf(cacheBoundsBytes);
      schedule.setBudget(budget.budgetBytes);
      return budget;
    },
    stop: () => {
      observer.disconnect();
      if (schedule.armed) setFlagsFromString('--no-compact-on-every-full-gc');
    },
  };
}
