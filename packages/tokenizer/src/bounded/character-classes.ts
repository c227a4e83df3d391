/**
 * Character classes that decide how long a pre-tokenizer piece can grow. The o200k and cl100k
 * split patterns only produce long pieces from long runs of one of these classes: letters and
 * marks (`\p{L}`, `\p{M}`), punctuation and symbols (`[^\s\p{L}\p{N}]`), whitespace (`\s`), and the
 * `[\r\n/]` tail o200k lets a punctuation piece carry. Digits come in groups of at most three.
 */
export const letterClass = 1;
export const punctuationClass = 2;
export const whitespaceClass = 4;
export const lineTailClass = 8;
export const digitClass = 16;

/** The classes whose runs can make one long piece (every class but digits). */
export const runClasses = [letterClass, punctuationClass, whitespaceClass, lineTailClass] as const;

const letter = /\p{L}/u;
const mark = /\p{M}/u;
const number = /\p{N}/u;
const space = /\s/u;

function classify(character: string): number {
  const isLetter = letter.test(character);
  const isMark = mark.test(character);
  const isNumber = number.test(character);
  const isSpace = space.test(character);
  let classes = 0;
  if (isLetter || isMark) classes |= letterClass;
  if (!isSpace && !isLetter && !isNumber) classes |= punctuationClass;
  if (isSpace) classes |= whitespaceClass;
  if (character === '\r' || character === '\n' || character === '/') classes |= lineTailClass;
  if (isNumber) classes |= digitClass;
  return classes;
}

/**
 * Classes of every UTF-16 code unit, filled on first sight: testing Unicode properties with a
 * regular expression costs tens of nanoseconds, a table lookup one. Stored as classes + 1 so
 * that 0 means "not yet classified".
 */
const basicPlane = new Uint8Array(0x10000);
const astral = new Map<number, number>();

/** Classes of the character that starts at `index` (a surrogate pair is one character). */
export function classesAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
    const low = text.charCodeAt(index + 1);
    if (low >= 0xdc00 && low <= 0xdfff) {
      const point = ((code - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
      let classes = astral.get(point);
      if (classes === undefined) {
        classes = classify(String.fromCodePoint(point));
        // Astral characters are rare outside emoji; the map stays small in practice and is capped.
        if (astral.size < 65_536) astral.set(point, classes);
      }
      return classes;
    }
  }
  const known = basicPlane[code]!;
  if (known !== 0) return known - 1;
  const classes = classify(String.fromCharCode(code));
  basicPlane[code] = classes + 1;
  return classes;
}

export function isLowSurrogateAfterHigh(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 0xdc00 || code > 0xdfff || index === 0) return false;
  const before = text.charCodeAt(index - 1);
  return before >= 0xd800 && before <= 0xdbff;
}
