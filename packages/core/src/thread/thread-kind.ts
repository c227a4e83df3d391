import type { Message } from '../schemas/message.js';

/**
 * What kind of conversation a span of messages is (ADR-0160): a **dialogue** (no tools, both sides
 * speak: people talking, or a chat without tools), a **coding** session (tool calls or results), or
 * **other** (one side only, or nothing said). The extractive summarizer keeps different things for
 * each, and the summary's share of the target follows the kind.
 */
export type ThreadKind = 'dialogue' | 'coding' | 'other';

/** The least number of speaking messages on each side before a tool-free span reads as a dialogue. */
const DIALOGUE_MIN_MESSAGES_PER_SIDE = 2;

/**
 * The kind of a span of messages: `coding` when any message calls a tool or carries a tool result,
 * `dialogue` when both the user and the assistant say something (at least two text messages each,
 * synthetic messages not counted), else `other`. Deterministic and linear.
 *
 * @param messages - The span (or the whole thread).
 * @returns Its kind.
 */
export function threadKindOf(
  messages: readonly Pick<Message, 'role' | 'content' | 'synthetic'>[],
): ThreadKind {
  let userTurns = 0;
  let assistantTurns = 0;
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool_call' || part.type === 'tool_result') return 'coding';
    }
    if (message.role === 'tool') return 'coding';
    if (message.synthetic) continue;
    const speaks = message.content.some((part) => part.type === 'text' && part.text.trim().length > 0);
    if (!speaks) continue;
    if (message.role === 'user') userTurns += 1;
    else if (message.role === 'assistant') assistantTurns += 1;
  }
  return userTurns >= DIALOGUE_MIN_MESSAGES_PER_SIDE && assistantTurns >= DIALOGUE_MIN_MESSAGES_PER_SIDE
    ? 'dialogue'
    : 'other';
}

/**
 * Whether a span is a conversation between named people: at least two distinct speaker names
 * (`metadata.speaker`) on its non-synthetic messages, as imported dialogue transcripts carry. There
 * the "user" is one of the people, not someone instructing an assistant (ADR-0160).
 *
 * @param messages - The span.
 * @returns True when two or more speakers are named.
 */
export function hasNamedSpeakers(messages: readonly Pick<Message, 'synthetic' | 'metadata'>[]): boolean {
  const names = new Set<string>();
  for (const message of messages) {
    if (message.synthetic) continue;
    const speaker = message.metadata?.speaker;
    if (typeof speaker === 'string' && speaker.trim() !== '') names.add(speaker.trim());
    if (names.size >= 2) return true;
  }
  return false;
}
