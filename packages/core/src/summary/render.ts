import { stableStringify } from '../stable-json.js';
import type { StructuredSummary } from './structured-summary.js';

/** Bump when the rendered text changes: it is part of cache keys and golden prompts. */
export const SUMMARY_RENDER_VERSION = 'v1';

/**
 * Render a summary as prompt text. Deterministic: fixed section order, sorted keys in
 * key fields, no timestamps or randomness; empty sections are left out.
 *
 * @param summary - The summary.
 * @returns The text, headed `[Summary v1]`.
 */
export function renderSummary(summary: StructuredSummary): string {
  const lines: string[] = [`[Summary ${SUMMARY_RENDER_VERSION}]`];
  const section = (title: string, body: string[]) => {
    if (body.length === 0) return;
    lines.push(`## ${title}`, ...body);
  };
  if (summary.currentTask) section('Current task', [summary.currentTask]);
  section('Facts and constraints', [
    ...externalizedPointer(summary),
    ...summary.facts.map((fact) => `- ${fact.pinned ? '[pinned] ' : ''}${fact.text}`),
  ]);
  section(
    'Decisions',
    summary.decisions.map(
      (decision) =>
        `- ${decision.decision}${decision.rationale ? ` (because ${decision.rationale})` : ''}${
          decision.turn !== undefined ? ` [turn ${decision.turn}]` : ''
        }`,
    ),
  );
  section(
    'Current plan',
    (summary.currentPlan ?? []).map((step, index) => `${index + 1}. ${step}`),
  );
  section(
    'Open items',
    summary.openItems.map(
      (item) => `- [${item.priority}] ${item.description}${item.context ? ` (${item.context})` : ''}`,
    ),
  );
  section(
    'Files modified',
    summary.filesModified.map((path) => `- ${path}`),
  );
  section(
    'Files read',
    summary.filesRead.map((path) => `- ${path}`),
  );
  section(
    'Tool outcomes',
    summary.toolOutcomes.map((outcome) => {
      const { command, ...others } = outcome.keyFields;
      // A one-line shell command is written as typed, after `$` (ADR-0401): inside JSON its quotes and
      // backslashes came out escaped, so the line did not hold the command a person would run again. One
      // with line breaks stays in JSON, so its lines cannot pass for the summary's own.
      const shell = typeof command === 'string' && !/[\r\n]/.test(command) ? command : undefined;
      const fields = shell === undefined ? outcome.keyFields : others;
      const keyFields = Object.keys(fields).length > 0 ? ` ${stableStringify(fields)}` : '';
      const commandLine = shell === undefined ? '' : ` $ ${shell}`;
      const error = outcome.errorMessage ? ` error: ${outcome.errorMessage}` : '';
      const count = outcome.count ? ` ×${outcome.count}` : '';
      return `- ${outcome.toolName} (${outcome.outcome}${count})${keyFields}${commandLine}${error}`;
    }),
  );
  // Artifacts thinned out of the text (ADR-0330) are not named here: a line counting them would take
  // the room of what the trim kept, and they stay the plan's (read_artifact, rehydration by hint).
  section(
    'Artifacts',
    summary.artifacts.map(
      (artifact) => `- artifact:${artifact.artifactId} ${artifact.description} (${artifact.rehydrateHint})`,
    ),
  );
  return lines.join('\n');
}

/**
 * The one line that stands for pinned facts moved out of the text (ADR-0161): how many, from which
 * turns' messages, and how to get them back. Empty when none were moved.
 */
function externalizedPointer(summary: StructuredSummary): string[] {
  const moved = summary.externalizedFacts ?? [];
  if (moved.length === 0) return [];
  const sources = moved.flatMap((fact) => (fact.sourceMessageId ? [fact.sourceMessageId] : []));
  const from =
    sources.length > 0
      ? ` (from messages ${sources.slice(0, 3).join(', ')}${sources.length > 3 ? ', …' : ''})`
      : '';
  return [
    `- [pinned] ${moved.length} earlier pinned instruction${moved.length === 1 ? '' : 's'}${from} held outside this summary; they still apply: search the history for them (search_history) when a turn needs their words.`,
  ];
}
