import { isTurnStart, type SummaryDecision, type ThreadMessage } from '@compactor/core';
import { clip, sentencesOf, sentencesOfProse, textOf, withoutCodeFences } from '../text.js';

const DECISION_MARKERS =
  /\b(i'll|i will|let's|let us|we'll|we will|decided|decision|going to|instead|the fix is|root cause|the problem (is|was)|the issue (is|was)|because|switch(ed)? to|chose|choose)\b/i;
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)])\s+(.*)$/;
const NEXT_STEP_MARKERS = /\b(next|then|todo|remaining|still need|follow[- ]up|afterwards)\b/i;

/** Statements in which the assistant commits to an approach or names a cause. */
export function extractDecisions(
  messages: readonly ThreadMessage[],
  maxDecisions: number,
): SummaryDecision[] {
  const decisions: SummaryDecision[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || message.subagentId !== undefined) continue;
    const prose = withoutCodeFences(textOf(message.content));
    // Each sentence is a stretch of the prose bounded by whitespace, so a sentence with a marker means the prose
    // has one: a message without one is not split at all (ADR-0405, most of the summarizer's sentence work).
    if (!DECISION_MARKERS.test(prose)) continue;
    for (const sentence of sentencesOfProse(prose)) {
      if (sentence.length < 20 || !DECISION_MARKERS.test(sentence)) continue;
      const decision = clip(sentence, 220);
      if (seen.has(decision)) continue;
      seen.add(decision);
      decisions.push({
        decision,
        turn: message.turn,
        ...(message.createdAt !== undefined ? { timestamp: message.createdAt } : {}),
      });
    }
  }
  return decisions.slice(-maxDecisions);
}

/** The latest real user request in the span: the task the agent was working on. */
export function extractCurrentTask(messages: readonly ThreadMessage[], maxChars: number): string | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (!isTurnStart(message)) continue;
    const text = textOf(message.content);
    if (text.length > 0) return clip(text, maxChars);
  }
  return null;
}

/** Next steps from the latest assistant text: its list items, else sentences that announce what comes next. */
export function extractNextSteps(messages: readonly ThreadMessage[], maxSteps: number): string[] | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.subagentId !== undefined) continue;
    const text = textOf(message.content);
    if (text.length === 0) continue;
    const items = text
      .split('\n')
      .map((line) => LIST_ITEM.exec(line)?.[1]?.trim())
      .filter((item): item is string => item !== undefined && item.length > 0)
      .map((item) => clip(item, 200));
    if (items.length > 0) return items.slice(0, maxSteps);
    const steps = sentencesOf(text)
      .filter((sentence) => NEXT_STEP_MARKERS.test(sentence))
      .map((sentence) => clip(sentence, 200));
    return steps.length > 0 ? steps.slice(0, maxSteps) : null;
  }
  return null;
}
