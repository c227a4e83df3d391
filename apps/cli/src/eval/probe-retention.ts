import type { ProbeRetention, RetentionCount } from './eval-types.js';
import type { CodingProbe } from './probes.js';
import { entryOf } from './record-entry.js';
import { containsNormalized } from './request-text.js';

/**
 * Coding probes: every probe counts for every system (one denominator); it is retained when its text
 * appears in the request (normalized: lower case, whitespace collapsed). Counted per probe kind too.
 */
export function codingRetention(probes: readonly CodingProbe[], requestText: string): ProbeRetention {
  const overall = emptyCount();
  const byKind: Record<string, RetentionCount> = {};
  for (const probe of probes) {
    const retained = containsNormalized(requestText, probe.text);
    const kind = entryOf(byKind, probe.kind, emptyCount);
    for (const count of [overall, kind]) {
      count.total += 1;
      if (retained) count.retained += 1;
    }
  }
  return { overall, byKind };
}

const emptyCount = (): RetentionCount => ({ retained: 0, total: 0 });

export function addCounts(left: RetentionCount, right: RetentionCount): RetentionCount {
  return { retained: left.retained + right.retained, total: left.total + right.total };
}

/** retained / total, or null when there was nothing to count. */
export function share(count: RetentionCount): number | null {
  return count.total === 0 ? null : count.retained / count.total;
}
