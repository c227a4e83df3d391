/**
 * Preloaded into the ingest by `ingest-heap.bench.ts` (`node --import ./gc-recorder.mjs`): appends
 * every full (mark-compact) collection's `perf_hooks` 'gc' entry to the file COMPACTOR_BENCH_GC_LOG
 * names, one JSON line each, on the process's own performance timeline (ms). Plain JavaScript so it
 * loads before tsx and observes from the first collection.
 */
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const path = process.env.COMPACTOR_BENCH_GC_LOG;
if (path) {
  new PerformanceObserver((list) => {
    const lines = list
      .getEntries()
      .filter((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
      .map((entry) =>
        JSON.stringify({ at: Date.now(), startTime: entry.startTime, durationMs: entry.duration }),
      );
    if (lines.length > 0) appendFileSync(path, `${lines.join('\n')}\n`);
  }).observe({ entryTypes: ['gc'] });
}
