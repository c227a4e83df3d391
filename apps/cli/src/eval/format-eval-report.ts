import type { EvaluationResult, RetentionCount, SystemSummary } from './eval-types.js';
import { share } from './probe-retention.js';

function percent(count: RetentionCount): string {
  const value = share(count);
  return value === null ? '–' : `${(value * 100).toFixed(1)}% (${count.retained}/${count.compacted})`;
}

function ratioPercent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((part / whole) * 100).toFixed(1)}%`;
}

function summaryTable(rows: readonly SystemSummary[]): string[] {
  return [
    '| system | runs | within budget | valid | compression (geo. mean) | probe retention | early-evidence retention | time |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.system} | ${row.runs} | ${ratioPercent(row.withinBudget, row.runs)} | ${ratioPercent(row.valid, row.runs)} | ${row.compression.toFixed(2)}× | ${percent(row.retention)} | ${percent(row.earlyRetention)} | ${(row.elapsedMs / 1000).toFixed(1)} s |`,
    ),
  ];
}

/** The evaluation as Markdown: per kind and overall, ours beside each baseline; LoCoMo at 4×; drift. */
export function formatEvaluationReport(result: EvaluationResult): string {
  const lines: string[] = ['# compactor eval', ''];
  lines.push(
    `${result.transcripts.length} transcripts, ${result.runs.length} runs, ${(result.elapsedMs / 1000).toFixed(1)} s.`,
    '',
  );
  for (const skipped of result.skipped) lines.push(`- skipped ${skipped}`);
  if (result.skipped.length > 0) lines.push('');
  for (const [kind, rows] of Object.entries(result.summaries)) {
    lines.push(`## ${kind}`, '', ...summaryTable(rows), '');
  }
  lines.push('## LoCoMo early-evidence retention at about 4× compression', '');
  lines.push('| system | retained |', '|---|---|');
  for (const [system, count] of Object.entries(result.locomoAtFourTimes))
    lines.push(`| ${system} | ${percent(count)} |`);
  lines.push('');
  const ours = result.runs.filter((run) => run.system === result.systems[0]?.name);
  if (ours.length > 0) {
    lines.push('## Our system: cost', '');
    const calls = ours.reduce((sum, run) => sum + (run.summarizerCalls ?? 0), 0);
    const cost = ours.reduce((sum, run) => sum + (run.summarizerCostUsd ?? 0), 0);
    const compactions = ours.reduce((sum, run) => sum + (run.compactions ?? 0), 0);
    const time = ours.reduce((sum, run) => sum + run.elapsedMs, 0);
    lines.push(
      `${compactions} compactions, ${calls} summarizer calls, $${cost.toFixed(4)}, ${(time / 1000).toFixed(1)} s of replay over ${ours.length} runs.`,
      '',
    );
  }
  if (result.drift.length > 0) {
    lines.push('## Drift: round-1 pinned facts present after each of 10 chained compactions', '');
    lines.push(
      '| transcript | pinned (round 1) | round-1 pinned present, per round | summarizing rounds | pinned seen (any round) | lost, per round |',
      '|---|---|---|---|---|---|',
      ...result.drift.map(
        (drift) =>
          `| ${drift.transcript} | ${drift.pinnedFactsRound1} | ${drift.presentPerRound.map((value) => (value === null ? '–' : String(value))).join(' ')} | ${drift.summarizedRounds} | ${drift.pinnedFactsSeen} | ${drift.lostPinnedPerRound.join(' ')} |`,
      ),
      '',
    );
  }
  const failures = result.runs.filter((run) => !run.withinBudget || !run.valid || run.error);
  if (failures.length > 0) {
    lines.push('## Runs over budget, invalid or failed', '');
    for (const run of failures.slice(0, 40)) {
      const why =
        run.error ??
        (run.valid ? `${run.requestTokens} > ${run.ceiling} tokens` : (run.validationErrors[0] ?? 'invalid'));
      lines.push(`- ${run.system} on ${run.transcript} @ ${run.budget}: ${why}`);
    }
    if (failures.length > 40) lines.push(`- … and ${failures.length - 40} more (see results.json)`);
    lines.push('');
  }
  return lines.join('\n');
}
