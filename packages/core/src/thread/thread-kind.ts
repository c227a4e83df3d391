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
  return tallyThreadKind(undefined, messages).kind;
}

/** What `threadKindOf` counted of a thread so far, to be extended as messages are appended. */
export interface ThreadKindTally {
  /** Messages counted (a prefix of the thread). */
  readonly scanned: number;
  readonly userTurns: number;
  readonly assistantTurns: number;
  readonly kind: ThreadKind;
}

/**
 * `threadKindOf`, extended from an earlier tally of the same thread's prefix: a caller that renders a
 * growing thread again and again counts only the messages appended since (a shorter thread than the
 * tally saw starts over).
 *
 * @param tally - The tally of a prefix of `messages`, if any.
 * @param messages - The thread's messages.
 * @returns The tally of all of them.
 */
export function tallyThreadKind(
  tally: ThreadKindTally | undefined,
  messages: readonly Pick<Message, 'role' | 'content' | 'synthetic'>[],
): ThreadKindTally {
  const from = tally && tally.scanned <= messages.length ? tally : undefined;
  if (from?.kind === 'coding') return { ...from, scanned: messages.length };
  let userTurns = from?.userTurns ?? 0;
  let assistantTurns = from?.assistantTurns ?? 0;
  for (let index = from?.scanned ?? 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    const coding =
      message.role === 'tool' ||
      message.content.some((part) => part.type === 'tool_call' || part.type === 'tool_result');
    if (coding) return { scanned: messages.length, userTurns, assistantTurns, kind: 'coding' };
    if (message.synthetic) continue;
    const speaks = message.content.some((part) => part.type === 'text' && part.text.trim().length > 0);
    if (!speaks) continue;
    if (message.role === 'user') userTurns += 1;
    else if (message.role === 'assistant') assistantTurns += 1;
  }
  const kind =
    userTurns >= DIALOGUE_MIN_MESSAGES_PER_SIDE && assistantTurns >= DIALOGUE_MIN_MESSAGES_PER_SIDE
      ? 'dialogue'
      : 'other';
  return { scanned: messages.length, userTurns, assistantTurns, kind };
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
