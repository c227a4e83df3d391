/**
 * Inputs byte-pair encoding handles worst, generated from a fixed seed so every run counts the
 * same text: one repeated letter, base64 of random bytes, CJK ideographs without punctuation,
 * and minified JavaScript (short identifiers, no spaces, long lines).
 */

function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state >>> 8;
  };
}

export function repeatedLetter(bytes: number): string {
  return 'a'.repeat(bytes);
}

export function base64Text(bytes: number, seed = 1): string {
  const next = randomSource(seed);
  const raw = Buffer.alloc(Math.ceil((bytes * 3) / 4));
  for (let index = 0; index < raw.length; index++) raw[index] = next() & 0xff;
  return raw.toString('base64').slice(0, bytes);
}

/** CJK Unified Ideographs (3 bytes each in UTF-8), no punctuation: one pre-tokenizer piece. */
export function cjkText(bytes: number, seed = 2): string {
  const next = randomSource(seed);
  const codes = new Array<number>(Math.floor(bytes / 3));
  for (let index = 0; index < codes.length; index++) codes[index] = 0x4e00 + (next() % 0x5200);
  let text = '';
  for (let index = 0; index < codes.length; index += 8_192) {
    text += String.fromCharCode(...codes.slice(index, index + 8_192));
  }
  return text;
}

const keywords = ['function', 'return', 'var', 'new', 'typeof', 'void', 'this', 'null', 'true', 'false'];
const operators = ['=', '==', '===', '!==', '&&', '||', '?', ':', '+', '-', '*', '/', '<', '>', '<=', '>>>', '|', '&', '!', '.'];

/** Minified-looking JavaScript: random short identifiers, operators, numbers and strings, few spaces. */
export function minifiedJavaScript(bytes: number, seed = 3): string {
  const next = randomSource(seed);
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$';
  const identifier = () => {
    let name = letters[next() % letters.length]!;
    const extra = next() % 3;
    for (let index = 0; index < extra; index++) name += letters[next() % letters.length];
    return name;
  };
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const choice = next() % 10;
    let part: string;
    if (choice < 4) part = identifier();
    else if (choice < 6) part = operators[next() % operators.length]!;
    else if (choice === 6) part = `${keywords[next() % keywords.length]} ${identifier()}`;
    else if (choice === 7) part = String(next() % 10_000);
    else if (choice === 8) part = `"${identifier()}${identifier()}"`;
    else part = ['(', ')', '{', '}', '[', ']', ',', ';'][next() % 8]!;
    parts.push(part);
    length += part.length;
  }
  return parts.join('').slice(0, bytes);
}
