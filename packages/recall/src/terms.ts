import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './stop-words.js';

/** Runs of letters and digits: "LGBTQ+" and "LGBTQ" are one term, "de-stress" two. */
const WORD_RUN = /[\p{L}\p{N}]+/gu;

/** A text's word runs, in order (the index and the query split alike). */
export function tokenizeRecallText(text: string): string[] {
  return text.match(WORD_RUN) ?? [];
}

/**
 * A word as the index holds it: lower-cased and stemmed (Porter, the `stemmer` package), so
 * "painted", "painting" and "paint" match; English stop words and one-letter words are left out, so
 * "what did she do" does not match everything.
 */
export function recallTerm(word: string): string | null {
  const lower = word.toLowerCase();
  if (lower.length < 2 || ENGLISH_STOP_WORDS.has(lower)) return null;
  return /^\p{N}+$/u.test(lower) ? lower : stemmer(lower);
}

/** Most distinct words a {@link recallTermMemo} remembers before it starts again. */
const MEMO_WORDS = 50_000;

/**
 * {@link recallTerm} remembering its answers (stemming is the index's main cost, and a thread's
 * vocabulary is small); one per index, bounded in entries.
 */
export function recallTermMemo(): (word: string) => string | null {
  const memo = new Map<string, string | null>();
  return (word) => {
    let term = memo.get(word);
    if (term === undefined) {
      if (memo.size >= MEMO_WORDS) memo.clear();
      term = recallTerm(word);
      memo.set(word, term);
    }
    return term;
  };
}
