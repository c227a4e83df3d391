/**
 * Preloaded into the ingest by `ingest-heap.bench.ts` (`node --import ./gc-recorder.mjs`): appends
 * every full (mark-compact) collection's `perf_hooks` 'gc' entry (and the old space and RSS read just after) to the file COMPACTOR_BENCH_GC_LOG
 * names, one JSON line each, on the process's own performance timeline (ms). Plain JavaScript so it
 * loads before tsx and observes from the first collection.
 */
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const path = process.env.COMPACTOR_BENCH_GC_LOG;
if (path) {
  new PerformanceObserver((list) => {
    const entries = list
      .getEntries()
      .filter((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (entries.length === 0) return;
    // The old space as the observer finds it, soon after the batch's last collection.
    const oldSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
    const rssMiB = process.memoryUsage.rss() / 1048576;
    const lines = entries.map((entry) =>
      JSON.stringify({
        at: Date.now(),
        startTime: entry.startTime,
        durationMs: entry.duration,
        oldSpaceUsedMiB: (oldSpace?.space_used_size ?? 0) / 1048576,
        oldSpaceCommittedMiB: (oldSpace?.space_size ?? 0) / 1048576,
        rssMiB,
      }),
    );
    if (lines.length > 0) appendFileSync(path, `${lines.join('\n')}\n`);
  }).observe({ entryTypes: ['gc'] });
}
