import {
  classesAt,
  digitClass,
  isLowSurrogateAfterHigh,
  letterClass,
  lineTailClass,
  punctuationClass,
  whitespaceClass,
} from './character-classes.js';
import type { CountingBounds } from './counting-bounds.js';

/** One segment of a text: where it ends, and whether the cut there can change the count. */
export interface Segment {
  end: number;
  /** The cut at `end` can change the count (it is paid for with `tokensPerCut`); never the last. */
  inexact: boolean;
}

const space = 0x20;
const newline = 0x0a;
const slash = 0x2f;

/**
 * A cut between `index - 1` and `index` that leaves the count exactly as it was: the split
 * pattern ends a piece there, and neither side's pieces depend on the other. Three cases, each
 * checked by the property test in `test/bounded-counting.unit.test.ts`:
 * - a space after a non-whitespace character (no pattern carries a space backwards);
 * - a non-digit after a digit (digits only form `\p{N}{1,3}` groups);
 * - a character other than whitespace and `/` after a line feed (the newline run ends there).
 */
function isExactCut(code: number, previousCode: number, before: number, here: number): boolean {
  if (code === space) return (before & whitespaceClass) === 0;
  if ((before & digitClass) !== 0) return (here & digitClass) === 0;
  return previousCode === newline && (here & whitespaceClass) === 0 && code !== slash;
}

/**
 * Whether `left + right` pre-tokenizes as `left`'s pieces followed by `right`'s, so its count is the
 * sum of theirs (ADR-0460): the join is one of `isExactCut`'s cuts and splits no surrogate pair. An
 * empty side joins anything.
 *
 * @param left - The text before the join.
 * @param right - The text after it.
 * @returns True when the join leaves the count as it is.
 */
export function joinsExactly(left: string, right: string): boolean {
  if (left.length === 0 || right.length === 0) return true;
  const previousCode = left.charCodeAt(left.length - 1);
  const code = right.charCodeAt(0);
  if (previousCode >= 0xd800 && previousCode <= 0xdbff && code >= 0xdc00 && code <= 0xdfff) return false;
  const lastStart =
    left.length >= 2 && isLowSurrogateAfterHigh(left, left.length - 1) ? left.length - 2 : left.length - 1;
  return isExactCut(code, previousCode, classesAt(left, lastStart), classesAt(right, 0));
}

/** UTF-8 bytes of a code unit (a surrogate pair's two halves make 4). */
function utf8Width(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800 || (code >= 0xd800 && code <= 0xdfff)) return 2;
  return 3;
}

/**
 * Whether `text` has a run of one character class longer than `maxRunBytes` (UTF-8), measured as
 * `segmentText` measures it before its first cut. A text of at most two slices without such a run is
 * one exact segment: `segmentText` cuts it only where the count stays as it is (ADR-0460).
 *
 * @param text - The text.
 * @param maxRunBytes - The run bound.
 * @returns True at the first run over the bound.
 */
export function hasRunLongerThan(text: string, maxRunBytes: number): boolean {
  if (text.length * 3 <= maxRunBytes) return false;
  let letters = 0;
  let punctuation = 0;
  let whitespace = 0;
  let lineTail = 0;
  let before = 0;
  let previousCode = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const pairTail = code >= 0xdc00 && code <= 0xdfff && previousCode >= 0xd800 && previousCode <= 0xdbff;
    const here = pairTail ? before : classesAt(text, index);
    const width = utf8Width(code);
    letters = (here & letterClass) !== 0 ? letters + width : 0;
    punctuation = (here & punctuationClass) !== 0 ? punctuation + width : 0;
    whitespace = (here & whitespaceClass) !== 0 ? whitespace + width : 0;
    lineTail = (here & lineTailClass) !== 0 ? lineTail + width : 0;
    if (
      letters > maxRunBytes ||
      punctuation > maxRunBytes ||
      whitespace > maxRunBytes ||
      lineTail > maxRunBytes
    ) {
      return true;
    }
    before = here;
    previousCode = code;
  }
  return false;
}

/**
 * Cuts `text` so that no run of one character class in a segment is longer than `maxRunBytes`
 * (UTF-8) and no segment is much longer than `sliceLength`, in one linear pass, handing out each
 * segment as soon as it is found (so a caller can give the event loop back in between). Text
 * with neither (ordinary prose and code under the slice length) is one segment, counted exactly.
 *
 * @param text - The text to cut.
 * @param bounds - The run and slice lengths.
 * @returns A generator of segment ends, each marked inexact when the cut may change the count.
 */
export function* segmentText(text: string, bounds: CountingBounds): Generator<Segment, void, undefined> {
  const { maxRunBytes, sliceLength } = bounds;
  // A run of more than maxRunBytes needs more than maxRunBytes / 3 UTF-16 units.
  if (text.length * 3 <= maxRunBytes) {
    yield { end: text.length, inexact: false };
    return;
  }
  let letters = 0;
  let punctuation = 0;
  let whitespace = 0;
  let lineTail = 0;
  let start = 0;
  let lastExact = -1;
  let before = 0;
  let previousCode = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // The low half of a surrogate pair continues its character: same classes, never a cut.
    const pairTail = code >= 0xdc00 && code <= 0xdfff && previousCode >= 0xd800 && previousCode <= 0xdbff;
    const here = pairTail ? before : classesAt(text, index);
    if (!pairTail && index > start && isExactCut(code, previousCode, before, here)) lastExact = index;
    const width = utf8Width(code);
    letters = (here & letterClass) !== 0 ? letters + width : 0;
    punctuation = (here & punctuationClass) !== 0 ? punctuation + width : 0;
    whitespace = (here & whitespaceClass) !== 0 ? whitespace + width : 0;
    lineTail = (here & lineTailClass) !== 0 ? lineTail + width : 0;
    let cut = -1;
    let inexact = true;
    if (
      letters > maxRunBytes ||
      punctuation > maxRunBytes ||
      whitespace > maxRunBytes ||
      lineTail > maxRunBytes
    ) {
      // Cut inside the run, before this character (or before its pair).
      cut = pairTail ? index - 1 : index;
    } else if (index - start >= sliceLength && lastExact > start) {
      cut = lastExact;
      inexact = false;
    } else if (index - start >= 2 * sliceLength && !pairTail) {
      cut = index;
    }
    if (cut > start) {
      yield { end: cut, inexact };
      start = cut;
      lastExact = -1;
      // Runs restart at the cut; what was scanned past it still counts (an over-estimate is harmless).
      const scanned = 4 * (index + 1 - cut);
      letters = Math.min(letters, scanned);
      punctuation = Math.min(punctuation, scanned);
      whitespace = Math.min(whitespace, scanned);
      lineTail = Math.min(lineTail, scanned);
    }
    before = here;
    previousCode = code;
  }
  yield { end: text.length, inexact: false };
}
