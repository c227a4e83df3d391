import { setFlagsFromString } from 'node:v8';
import { z } from 'zod';

/**
 * How the servers' V8 heap is compacted (ADR-0355):
 * - `every-full-gc` (the default): every full collection also compacts the old space, so the pages
 *   the byte-bounded caches leave partly used are given back and RSS follows what the heap holds;
 * - `v8-default`: V8's own heuristics (a full collection compacts only its most fragmented pages),
 *   and nothing is set: a flag given on the command line stays as given.
 */
export const HEAP_COMPACTION_MODES = ['every-full-gc', 'v8-default'] as const;
export type HeapCompaction = (typeof HEAP_COMPACTION_MODES)[number];

/** The variable, shared by the worker's and the ingest's configuration. */
export const heapCompactionEnvironment = {
  COMPACTOR_HEAP_COMPACTION: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .enum(HEAP_COMPACTION_MODES, { error: `must be one of ${HEAP_COMPACTION_MODES.join(', ')}` })
      .default('every-full-gc'),
  ),
};

/** The V8 flag `every-full-gc` sets. Not accepted in NODE_OPTIONS, hence set from the entry. */
export const COMPACT_ON_EVERY_FULL_GC_FLAG = '--compact-on-every-full-gc';

/**
 * Apply the setting to this process. V8 reads the flag at each full collection, so setting it at
 * start (before the caches fill) is enough; it is process-wide, which is why only the apps' entries
 * call this, never a library.
 *
 * @param mode - The configured mode.
 * @returns The V8 flags set (empty for `v8-default`), to log.
 */
export function applyHeapCompaction(mode: HeapCompaction): string[] {
  if (mode === 'v8-default') return [];
  setFlagsFromString(COMPACT_ON_EVERY_FULL_GC_FLAG);
  return [COMPACT_ON_EVERY_FULL_GC_FLAG];
}
