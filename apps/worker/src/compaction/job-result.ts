import type { CheckResult } from '@compactor/engine';
import type { CompactionJobResult } from '@compactor/queue';

/**
 * What a check did, as the queue records it: a committed plan carries its version, the tokens it
 * freed and what the summarizer cost; losing the plan CAS to another worker is a `conflict` (the
 * summarizer's cost was still paid); no commit keeps the planner's status, or says why the
 * planner did not run (`skipped`: under the trigger; `disabled`: automatic compaction is off).
 *
 * @param result - The engine's check result.
 * @returns The job's result.
 */
export function jobResultOf(result: CheckResult): CompactionJobResult {
  const planner = result.planner;
  const summarizerCostUsd = planner?.summarizerCostUsd ?? 0;
  switch (result.commit.status) {
    case 'committed':
      return {
        status: planner?.status === 'target_unreachable' ? 'target_unreachable' : 'compacted',
        planVersion: result.commit.version,
        tokensFreed: Math.max(0, (planner?.tokensBefore ?? 0) - (planner?.tokensAfter ?? 0)),
        summarizerCostUsd,
      };
    case 'lost_race':
      return { status: 'conflict', summarizerCostUsd };
    case 'not_needed':
      if (!planner) return { status: result.trigger.fire ? 'disabled' : 'skipped' };
      // Nothing was added, so nothing was compacted, whatever the planner's own word.
      return { status: planner.status === 'compacted' ? 'unchanged' : planner.status, summarizerCostUsd };
  }
}
