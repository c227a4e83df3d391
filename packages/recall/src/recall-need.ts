/**
 * Question marks of the scripts we meet (Latin and fullwidth, Spanish opening, Arabic, Greek), so a
 * question asked in another language still reads as one.
 */
const QUESTION_MARK = /[?\uFF1F\u00BF\u061F\u037E]/u;

/**
 * Words that ask for something said before without a question mark ("remind me of the hotel",
 * "as I mentioned earlier"). English only; a question mark is the signal in other languages.
 */
const MEMORY_CUE =
  /\b(remember|remind|recall|mentioned|earlier|forgot|forget|last time|you said|i said|we said|we discussed|we talked about)\b/iu;

/**
 * Whether a turn asks for something the conversation may hold (ADR-0320): a question, or a cue that
 * points back ("remind me …", "as I mentioned"). A turn that only says something (small talk, a
 * reaction, a statement) is answered from what the request already shows; recall written for it is a
 * block no one reads, paid for uncached on every call of a dialogue.
 *
 * @param text - The turn's text (the recall query).
 * @returns True when it asks.
 */
export function asksForRecall(text: string): boolean {
  return QUESTION_MARK.test(text) || MEMORY_CUE.test(text);
}
