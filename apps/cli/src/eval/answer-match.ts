/**
 * Answer matching that a chance hit cannot pass for recall: both sides reduced to lower-case words
 * (anything but letters and digits is a separator), the answer matched as a whole run of words.
 * "2" no longer matches "2023", "no" no longer matches "know", "jo" no longer matches "joanna".
 */
export function wordsOf(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Answers too short or too generic to count: under 4 characters of words, or yes/no answers. */
export const MIN_ANSWER_CHARS = 4;
const yesNo = /^(yes|no|yeah|nope|yes and no|not sure)\b/;

export function isScorableAnswer(answer: string | undefined): answer is string {
  if (answer === undefined) return false;
  const words = wordsOf(answer);
  return words.replace(/ /g, '').length >= MIN_ANSWER_CHARS && !yesNo.test(words);
}

/** Whether `haystackWords` (already `wordsOf`) holds the answer on word boundaries; unscorable answers never match. */
export function answerMatches(haystackWords: string, answer: string | undefined): boolean {
  if (!isScorableAnswer(answer)) return false;
  return ` ${haystackWords} `.includes(` ${wordsOf(answer)} `);
}

export interface ChanceMessage {
  id: string;
  text: string;
  tokens: number;
}

/**
 * The chance floor's request for one question: the conversation's messages holding none of the
 * evidence, newest first, taken while they fit `tokens` (the tokens the system's own request used),
 * plus the question. The same answer check on it tells how often the answer turns up without
 * the evidence: a score at or under this floor shows no retention at all.
 */
export function chanceWords(
  messages: readonly ChanceMessage[],
  evidenceIds: ReadonlySet<string>,
  tokens: number,
  question: string,
): string {
  const kept: string[] = [];
  let used = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (evidenceIds.has(message.id)) continue;
    if (used + message.tokens > tokens) break;
    used += message.tokens;
    kept.push(message.text);
  }
  kept.reverse().push(question);
  return wordsOf(kept.join('\n'));
}
