import type { ReplayReport } from './replay-transcript.js';

const number = (value: number) => value.toLocaleString('en-US');

/**
 * The replay report for a person: one fact a line, aligned.
 *
 * @param report - The replay report.
 * @param outFile - Where the final request was written, if anywhere.
 * @returns The text.
 */
export function formatReplayReport(report: ReplayReport, outFile?: string): string {
  const ratio = report.tokensAfter > 0 ? (report.tokensBefore / report.tokensAfter).toFixed(2) : 'n/a';
  const strategies = (counts: ReplayReport['recordsByStrategy']) =>
    Object.entries(counts)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ');
  const rows: Array<[string, string]> = [
    [
      'transcript',
      `${report.file} (${report.format}, conversation ${report.conversation} of ${report.conversationCount})`,
    ],
    ['thread', report.threadId],
    ['model', `${report.model}, ${number(report.contextWindow)}-token window, ${report.provider} format`],
    [
      'events',
      `${number(report.events)} (${number(report.messages)} messages, ${number(report.userTurns)} user turns)`,
    ],
    ['tokens before', `${number(report.tokensBefore)} (the whole transcript as one prompt)`],
    [
      'tokens after',
      report.renderError
        ? `does not fit: ${report.renderError}`
        : `${number(report.tokensAfter)} of a ${number(report.ceiling)} ceiling (${ratio}× smaller)${report.emergencyFit ? ', emergency fit applied' : ''}`,
    ],
    [
      'compactions',
      `${report.compactions} committed in ${report.checks} checks, plan version ${report.planVersion}${report.unreachable ? `, ${report.unreachable} could not reach the target` : ''}`,
    ],
    ['records (final plan)', strategies(report.recordsByStrategy)],
    ['records (all rounds)', strategies(report.recordsAddedByStrategy)],
    [
      'summarizer',
      `${report.summarizer}: ${report.summarizerCalls} calls, $${report.summarizerCostUsd.toFixed(4)}`,
    ],
    ['elapsed', `${(report.elapsedMs / 1000).toFixed(1)} s`],
  ];
  if (report.importWarnings.length > 0)
    rows.push(['import warnings', `${report.importWarnings.length} (see --json)`]);
  if (outFile) rows.push(['request written to', outFile]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return `${rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')}\n`;
}
