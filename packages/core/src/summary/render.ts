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
  section(
    'Facts and constraints',
    summary.facts.map((fact) => `- ${fact.pinned ? '[pinned] ' : ''}${fact.text}`),
  );
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
      const keyFields =
        Object.keys(outcome.keyFields).length > 0 ? ` ${stableStringify(outcome.keyFields)}` : '';
      const error = outcome.errorMessage ? ` error: ${outcome.errorMessage}` : '';
      return `- ${outcome.toolName} (${outcome.outcome})${keyFields}${error}`;
    }),
  );
  section(
    'Artifacts',
    summary.artifacts.map(
      (artifact) => `- artifact:${artifact.artifactId} ${artifact.description} (${artifact.rehydrateHint})`,
    ),
  );
  return lines.join('\n');
}
