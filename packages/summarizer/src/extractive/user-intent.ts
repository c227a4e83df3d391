import {
  clipPasted,
  isConversationalSentence,
  isTurnStart,
  type SummaryFact,
  splitPasted,
  type ThreadMessage,
} from '@compactor/core';
import { sentencesOf, textOf } from '../text.js';

/**
 * Words that mark an instruction or constraint a person expects to hold for the rest of the
 * session. Matching is on whole words, case-insensitive.
 */
const CONSTRAINT_MARKERS = [
  'always',
  'never',
  'must',
  'must not',
  "mustn't",
  'do not',
  "don't",
  'dont',
  'should',
  'should not',
  "shouldn't",
  'only',
  'avoid',
  'make sure',
  'ensure',
  'prefer',
  'instead of',
  'required',
  'require',
  'forbidden',
  'not allowed',
  'no more than',
  'at most',
  'at least',
  'budget',
  'deadline',
  'important',
  'remember',
];

const constraintPattern = new RegExp(
  `\\b(${CONSTRAINT_MARKERS.map((marker) => marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`,
  'i',
);

/**
 * Whether a sentence of the user's reads as an instruction or constraint ("never", "must", "at most"…).
 *
 * @param sentence - One sentence.
 * @returns True when it holds a constraint marker as a whole word.
 */
export function isConstraintSentence(sentence: string): boolean {
  return constraintPattern.test(sentence);
}

export interface UserIntent {
  /** Instructions and constraints, verbatim, pinned so every later round keeps them. */
  constraints: SummaryFact[];
  /** What the user asked for in each turn (short requests verbatim, long ones clipped). */
  requests: SummaryFact[];
}

export interface UserIntentOptions {
  /** Requests up to this many characters are kept verbatim; longer ones are clipped. */
  verbatimRequestChars: number;
  /** A constraint sentence longer than this is clipped (pasted logs are not constraints). */
  maxConstraintChars: number;
}

/**
 * The user's requests and constraints, copied from the messages themselves (never paraphrased):
 * constraint sentences and pinned messages become pinned facts; each request becomes a fact.
 */
export function extractUserIntent(
  messages: readonly ThreadMessage[],
  options: UserIntentOptions,
): UserIntent {
  const constraints: SummaryFact[] = [];
  const requests: SummaryFact[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'user' && !(message.pinned && message.role !== 'tool')) continue;
    const text = textOf(message.content);
    if (text.length === 0) continue;
    if (message.pinned) {
      const fact = { text, pinned: true, sourceMessageId: message.id };
      if (!seen.has(text)) constraints.push(fact);
      seen.add(text);
      continue;
    }
    if (!isTurnStart(message)) continue;
    // Constraints come from what the person wrote, not from a pasted log ("ERROR: must not be null").
    for (const sentence of sentencesOf(splitPasted(text).prose)) {
      // A marker word alone is not enough: conversation ("That must have been awesome", "I always
      // loved it", "Keep it up!") is not pinned (core's `isConversationalSentence`, ADR-0160).
      if (
        sentence.length > options.maxConstraintChars ||
        !isConstraintSentence(sentence) ||
        isConversationalSentence(sentence)
      )
        continue;
      const constraint = `User constraint (turn ${message.turn}): ${sentence}`;
      if (seen.has(constraint)) continue;
      seen.add(constraint);
      constraints.push({ text: constraint, pinned: true, sourceMessageId: message.id });
    }
    // Pasted logs, files and code keep their head and tail (the error is at the bottom of a log).
    const request = clipPasted(text, options.verbatimRequestChars);
    requests.push({
      text: `User request (turn ${message.turn}): ${request}`,
      pinned: false,
      sourceMessageId: message.id,
    });
  }
  return { constraints, requests };
}
