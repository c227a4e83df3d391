import type {
  CacheSummary,
  NeedleSummaryRow,
  QaSummaryRow,
  RetentionCount,
  RunMetrics,
  SystemSummary,
} from './eval-types.js';
import type { NeedleRun } from './needle-rounds.js';
import { addCounts } from './probe-retention.js';
import { addTally, emptyTally, mergeUsage } from './qa-tally.js';
import type { QaRun } from './question-conditioned.js';
import { entryOf } from './record-entry.js';

const zero = (): RetentionCount => ({ retained: 0, total: 0 });

/** Per transcript kind and `overall`, each system's totals. */
export function summarize(
  runs: readonly RunMetrics[],
  systems: ReadonlyArray<{ name: string; source: string }>,
): Record<string, SystemSummary[]> {
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
  return summaries;
}

function summarizeSystem(
  system: { name: string; source: string },
  runs: readonly RunMetrics[],
): SystemSummary {
  const ratios = runs.map((run) => run.compressionRatio).filter((ratio) => ratio > 0);
  const fills = runs.filter((run) => run.ceiling > 0).map((run) => run.requestTokens / run.ceiling);
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
    retention: runs.reduce((total, run) => addCounts(total, run.retention.overall), zero()),
    fill: fills.length === 0 ? 0 : fills.reduce((sum, fill) => sum + fill, 0) / fills.length,
    elapsedMs: runs.reduce((total, run) => total + run.elapsedMs, 0),
    cache: summarizeCache(runs),
  };
}

/** The cache figures of `runs` that measured it: mean share, sums of the rest. */
export function summarizeCache(runs: readonly RunMetrics[]): CacheSummary | null {
  const measured = runs.flatMap((run) => (run.cache ? [run.cache] : []));
  if (measured.length === 0) return null;
  const sum = (pick: (cache: (typeof measured)[number]) => number) =>
    measured.reduce((total, cache) => total + pick(cache), 0);
  return {
    runs: measured.length,
    cachedShare: sum((cache) => cache.cachedShare) / measured.length,
    inputTokens: sum((cache) => cache.inputTokens),
    uncachedTokens: sum((cache) => cache.uncachedTokens),
    commits: sum((cache) => cache.commits),
    emergencyFits: sum((cache) => cache.emergencyFits),
    costUsd: sum((cache) => cache.costUsd),
    openAiCostUsd: sum((cache) => cache.openAiCostUsd),
  };
}

/** Question-conditioned runs per system and ratio, summed over conversations. */
export function summarizeQa(runs: readonly QaRun[]): QaSummaryRow[] {
  const rows = new Map<string, { row: QaSummaryRow; usages: QaRun['usage'][] }>();
  for (const run of runs) {
    const key = `${run.system}\u0000${run.ratio}`;
    let entry = rows.get(key);
    if (!entry) {
      entry = {
        row: {
          system: run.system,
          ratio: run.ratio,
          overall: emptyTally(),
          early: emptyTally(),
          late: emptyTally(),
          byCategory: {},
          usage: run.usage,
        },
        usages: [],
      };
      rows.set(key, entry);
    }
    addTally(entry.row.overall, run.overall);
    addTally(entry.row.early, run.early);
    addTally(entry.row.late, run.late);
    for (const [category, tally] of Object.entries(run.byCategory))
      addTally(entryOf(entry.row.byCategory, category, emptyTally), tally);
    entry.usages.push(run.usage);
  }
  return [...rows.values()].map(({ row, usages }) => ({ ...row, usage: mergeUsage(usages) }));
}

/** Needle runs per system and ceiling, summed over rounds and transcripts. */
export function summarizeNeedles(runs: readonly NeedleRun[]): NeedleSummaryRow[] {
  const rows = new Map<string, NeedleSummaryRow>();
  for (const run of runs) {
    const key = `${run.system}\u0000${run.ceiling}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        system: run.system,
        ceiling: run.ceiling,
        instructions: zero(),
        facts: zero(),
        keptEveryRound: zero(),
        renders: 0,
        emergencyFits: 0,
        droppedSummaries: 0,
        summaryOverBudget: 0,
        meanRequestTokens: 0,
        byKind: {},
      };
      rows.set(key, row);
    }
    const kind = entryOf(row.byKind, run.kind, () => ({ instructions: zero(), facts: zero() }));
    for (const round of run.rounds) {
      for (const into of [row.instructions, kind.instructions]) {
        into.retained += round.instructionsPresent;
        into.total += round.instructions;
      }
      for (const into of [row.facts, kind.facts]) {
        into.retained += round.factsRecalled;
        into.total += round.facts;
      }
      row.meanRequestTokens = (row.meanRequestTokens * row.renders + round.requestTokens) / (row.renders + 1);
      row.renders += 1;
      if (round.emergency) row.emergencyFits += 1;
      row.droppedSummaries += round.emergency?.droppedSummaries ?? 0;
      if (round.summaryBudget !== null && round.summaryTokens > round.summaryBudget)
        row.summaryOverBudget += 1;
    }
    row.keptEveryRound.retained += run.keptEveryRound;
    row.keptEveryRound.total += run.needles.length;
  }
  return [...rows.values()].map((row) => ({ ...row, meanRequestTokens: Math.round(row.meanRequestTokens) }));
}
