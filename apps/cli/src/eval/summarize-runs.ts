import type { RetentionCount, RunMetrics, SystemSummary } from './eval-types.js';
import { addCounts } from './probe-retention.js';

/** The compression a LoCoMo run is counted at for the "4× compression" target. */
export const TARGET_COMPRESSION = 4;

/**
 * Per transcript kind and `overall`, each system's totals. For LoCoMo at 4×: per transcript, the
 * budget whose nominal compression (transcript tokens / budget) is nearest 4; early-evidence counts
 * summed over those runs.
 */
export function summarize(
  runs: readonly RunMetrics[],
  systems: ReadonlyArray<{ name: string; source: string }>,
): { summaries: Record<string, SystemSummary[]>; locomoAtFourTimes: Record<string, RetentionCount> } {
  const kinds = [...new Set(runs.map((run) => run.kind))];
  const summaries: Record<string, SystemSummary[]> = {};
  for (const kind of [...kinds, 'overall']) {
    summaries[kind] = systems.map((system) =>
      summarizeSystem(
        system,
        runs.filter((run) => run.system === system.name && (kind === 'overall' || run.kind === kind)),
      ),
    );
  }
  const locomoAtFourTimes: Record<string, RetentionCount> = {};
  const chosen = new Map<string, number>();
  for (const run of runs.filter((candidate) => candidate.kind === 'locomo' && candidate.budget > 0)) {
    const current = chosen.get(run.transcript);
    const distance = (budget: number) => Math.abs(run.transcriptTokens / budget - TARGET_COMPRESSION);
    if (current === undefined || distance(run.budget) < distance(current))
      chosen.set(run.transcript, run.budget);
  }
  for (const system of systems) {
    locomoAtFourTimes[system.name] = runs
      .filter(
        (run) =>
          run.system === system.name && run.kind === 'locomo' && chosen.get(run.transcript) === run.budget,
      )
      .reduce((total, run) => addCounts(total, run.retention.early), { retained: 0, compacted: 0 });
  }
  return { summaries, locomoAtFourTimes };
}

function summarizeSystem(
  system: { name: string; source: string },
  runs: readonly RunMetrics[],
): SystemSummary {
  const ratios = runs.map((run) => run.compressionRatio).filter((ratio) => ratio > 0);
  return {
    system: system.name,
    source: system.source,
    runs: runs.length,
    withinBudget: runs.filter((run) => run.withinBudget).length,
    valid: runs.filter((run) => run.valid).length,
    compression:
      ratios.length === 0
        ? 0
        : Math.exp(ratios.reduce((sum, ratio) => sum + Math.log(ratio), 0) / ratios.length),
    retention: runs.reduce((total, run) => addCounts(total, run.retention.overall), {
      retained: 0,
      compacted: 0,
    }),
    elapsedMs: runs.reduce((total, run) => total + run.elapsedMs, 0),
    earlyRetention: runs.reduce((total, run) => addCounts(total, run.retention.early), {
      retained: 0,
      compacted: 0,
    }),
  };
}
