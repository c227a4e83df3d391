import { renderSummary, type StructuredSummary } from '@compactor/core';

/** Bump when the prompt changes: it is part of every summary cache key. */
export const SUMMARY_PROMPT_VERSION = 'anthropic-summary-v1';

/** The system prompt of every summarization call. */
export const SUMMARY_SYSTEM_PROMPT = `You are performing a context checkpoint compaction for an AI agent's conversation.
Another model will continue the work with only your summary and the most recent messages, so record everything it needs:
- the user's requests, instructions, constraints and preferences, in their own words where possible;
- decisions made and why, errors met and how they were resolved;
- exact file paths read and modified, commands run, ids and values produced by tools;
- what is being worked on now and the next steps.
Never invent facts. Prefer exact names, numbers and paths over paraphrase. Be dense: lists, not prose.
Always answer by calling the ${'record_summary'} tool exactly once.`;

/**
 * The user message of one summarization call: the previous summary to integrate, the span's
 * transcript (marked as part i of n when split), and any manual instructions.
 *
 * @param input - The transcript text and what else the model should see.
 * @returns The prompt text.
 */
export function buildSummaryPrompt(input: {
  transcript: string;
  previousSummary?: StructuredSummary;
  instructions?: string;
  part?: { index: number; count: number };
}): string {
  const sections: string[] = [];
  if (input.previousSummary) {
    sections.push(
      `<previous_summary>\nThis summary covers the conversation before the span below. Integrate it: keep everything still relevant.\n${renderSummary(input.previousSummary)}\n</previous_summary>`,
    );
  }
  const part = input.part && input.part.count > 1 ? ` (part ${input.part.index} of ${input.part.count})` : '';
  sections.push(`<conversation_span${part}>\n${input.transcript}\n</conversation_span>`);
  if (input.instructions) sections.push(`<instructions>\n${input.instructions}\n</instructions>`);
  sections.push('Summarize the span by calling record_summary.');
  return sections.join('\n\n');
}
