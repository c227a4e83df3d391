import { z } from 'zod';
import type { SummarizationRecord } from './records.js';
import { summaryText } from './stand-in-texts.js';

/** pi's prefix for a summary sent as a user message (the `pi` preset). */
export const PI_SUMMARY_PREFIX =
  'Another language model worked on this task and produced a summary. Use this to continue the work without duplicating effort:';

/** The session service's default user shadow before its summary (the `seed-004-*` presets). */
export const DEFAULT_SHADOW_PROMPT = 'Summarize the conversation so far.';

/**
 * How a thread's summaries are written and sent (ADR-0185), chosen per policy, beside the summary's
 * content: `format` is the text (`structured`: Compactor's `[Context Summary - Turns a-b]` rendering;
 * `session-summary`: the `seed-003` preset's "## Session Summary (Compaction Round N)" template), `message` the
 * messages it travels as (`assistant`, the default; `user-prefixed`: one user message opened by
 * `prefix`, pi's; `shadow-pair`: a user shadow then the assistant summary, the `seed-004-*` presets').
 */
export const summaryStyleSchema = z.object({
  format: z.enum(['structured', 'session-summary']).default('structured'),
  message: z.enum(['assistant', 'user-prefixed', 'shadow-pair']).default('assistant'),
  /** The user message's opening line for `user-prefixed`; default pi's. */
  prefix: z.string().min(1).max(2_000).optional(),
});
export type SummaryStyle = z.infer<typeof summaryStyleSchema>;

/** The default style: every existing rendering, byte for byte. */
export const DEFAULT_SUMMARY_STYLE: SummaryStyle = { format: 'structured', message: 'assistant' };

/**
 * True when a style renders exactly as the default does.
 *
 * @param style - A thread's summary style.
 * @returns Whether nothing about it differs from the default.
 */
export function isDefaultSummaryStyle(style: SummaryStyle | undefined): boolean {
  return style === undefined || (style.format === 'structured' && style.message === 'assistant');
}

/**
 * The summary's text in a style's format: the `seed-003` preset's template, or the structured stand-in.
 *
 * @param record - The summarization record.
 * @param style - The thread's style.
 * @returns The text.
 */
export function styledSummaryText(record: SummarizationRecord, style: SummaryStyle): string {
  return style.format === 'session-summary' ? sessionSummaryText(record) : summaryText(record);
}

/**
 * The messages a summary travels as, in order.
 *
 * @param record - The summarization record.
 * @param style - The thread's style.
 * @param shadowPrompt - The user shadow of a `shadow-pair` (the recursive mode's `shadowPrompt`).
 * @returns One or two messages; the first is a user message unless the style is `assistant`.
 */
export function summaryMessages(
  record: SummarizationRecord,
  style: SummaryStyle,
  shadowPrompt: string | undefined,
): Array<{ role: 'user' | 'assistant'; text: string }> {
  const text = styledSummaryText(record, style);
  if (style.message === 'user-prefixed')
    return [{ role: 'user', text: `${style.prefix ?? PI_SUMMARY_PREFIX}\n\n${text}` }];
  if (style.message === 'shadow-pair') {
    return [
      { role: 'user', text: shadowPrompt ?? DEFAULT_SHADOW_PROMPT },
      { role: 'assistant', text },
    ];
  }
  return [{ role: 'assistant', text }];
}

/**
 * The `seed-003` preset's "## Session Summary" template over a structured summary, with its round.
 *
 * @param record - The summarization record (its `round` is the compaction round).
 * @returns The markdown text.
 */
export function sessionSummaryText(record: SummarizationRecord): string {
  const summary = record.summary;
  const list = (items: readonly string[], empty = '- None') =>
    items.length > 0 ? items.map((item) => `- ${item}`) : [empty];
  const task = summary.currentTask ?? summary.facts.find((fact) => fact.pinned)?.text ?? 'Not recorded.';
  const work = [
    ...summary.filesModified.map((file) => `| ${file} | Modified | |`),
    ...summary.toolOutcomes
      .filter((outcome) => outcome.outcome === 'success')
      .map((outcome) => `| ${outcome.toolName} | ${outcome.outcome} | ${keyFieldsText(outcome.keyFields)} |`),
  ];
  const errors = summary.toolOutcomes
    .filter((outcome) => outcome.outcome !== 'success')
    .map((outcome) => `${outcome.toolName}: ${outcome.errorMessage ?? outcome.outcome}`);
  const lines = [
    `## Session Summary (Compaction Round ${record.round})`,
    '',
    '### Original Task',
    task,
    '',
    '### Completed Work',
    '| File/Component | Action | Description |',
    '|----------------|--------|-------------|',
    ...work,
    '',
    '### Key Technical Decisions',
    ...list(
      summary.decisions.map(
        (decision) => decision.decision + (decision.rationale ? ` (${decision.rationale})` : ''),
      ),
    ),
    '',
    '### Current State',
    ...list(summary.facts.map((fact) => fact.text)),
    '',
    '### Pending Work',
    ...(summary.openItems.length + (summary.currentPlan?.length ?? 0) > 0
      ? [
          ...summary.openItems.map((item) => `- [ ] ${item.description}`),
          ...(summary.currentPlan ?? []).map((step) => `- [ ] ${step}`),
        ]
      : ['- None']),
    '',
    '### Errors & Resolutions',
    ...list(errors),
  ];
  if (record.round > 1) {
    lines.push('', `This summary incorporates context from ${record.round - 1} previous compaction rounds.`);
  }
  return lines.join('\n');
}

function keyFieldsText(keyFields: Record<string, unknown>): string {
  return Object.entries(keyFields)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}
