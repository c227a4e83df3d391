/**
 * Preloaded into the ingest by `ingest-heap.bench.ts` (`node --import ./gc-recorder.mjs`): appends
 * every full (mark-compact) collection's `perf_hooks` 'gc' entry (and the old space, the young
 * generation's capacity and RSS read just after) to the file COMPACTOR_BENCH_GC_LOG names, one JSON
 * line each, on the process's own performance timeline (ms). Scavenges (minor collections) are too
 * many for a line each: each observer batch that has some appends one `{"kind":"scavenges"}` line
 * with their count and summed pauses. Plain JavaScript so it loads before tsx and observes from the
 * first collection.
 */
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const path = process.env.COMPACTOR_BENCH_GC_LOG;
if (path) {
  new PerformanceObserver((list) => {
    const entries = list.getEntries();
    const fullCollections = entries.filter(
      (entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
    );
    const scavenges = entries.filter((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR);
    if (fullCollections.length === 0 && scavenges.length === 0) return;
    const spaces = getHeapSpaceStatistics();
    // The old space as the observer finds it, soon after the batch's last collection.
    const oldSpace = spaces.find((space) => space.space_name === 'old_space');
    // new_space's size is both semi-spaces' (V8 11, Node 20).
    const newSpace = spaces.find((space) => space.space_name === 'new_space');
    const rssMiB = process.memoryUsage.rss() / 1048576;
    const lines = fullCollections.map((entry) =>
      JSON.stringify({
        kind: 'full',
        at: Date.now(),
        startTime: entry.startTime,
        durationMs: entry.duration,
        oldSpaceUsedMiB: (oldSpace?.space_used_size ?? 0) / 1048576,
        oldSpaceCommittedMiB: (oldSpace?.space_size ?? 0) / 1048576,
        newSpaceCommittedMiB: (newSpace?.space_size ?? 0) / 1048576,
        rssMiB,
      }),
    );
    if (scavenges.length > 0) {
      lines.push(
        JSON.stringify({
          kind: 'scavenges',
          at: Date.now(),
          count: scavenges.length,
          durationMs: scavenges.reduce((sum, entry) => sum + entry.duration, 0),
          longestMs: Math.max(...scavenges.map((entry) => entry.duration)),
          newSpaceCommittedMiB: (newSpace?.space_size ?? 0) / 1048576,
        }),
      );
    }
    appendFileSync(path, `${lines.join('\n')}\n`);
  }).observe({ entryTypes: ['gc'] });
}
