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

/** What a minifier leaves: one- and two-letter local names, real property and global names, keywords. */
const localNames = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$'.split('');
const propertyNames = [
  'length',
  'prototype',
  'push',
  'call',
  'apply',
  'indexOf',
  'toString',
  'replace',
  'slice',
  'map',
  'forEach',
  'hasOwnProperty',
  'exports',
  'default',
  'value',
  'get',
  'set',
  'then',
  'catch',
  'keys',
  'assign',
  'create',
  'defineProperty',
  'isArray',
  'join',
  'split',
  'concat',
  'filter',
  'reduce',
  'test',
  'match',
  'name',
  'type',
];
const keywords = [
  'function',
  'return',
  'var',
  'new',
  'typeof',
  'void',
  'this',
  'null',
  'true',
  'false',
  'if',
  'else',
  'for',
  'in',
];
const operators = [
  '=',
  '==',
  '===',
  '!==',
  '&&',
  '||',
  '?',
  ':',
  '+',
  '-',
  '*',
  '<',
  '>',
  '<=',
  '>>>',
  '|',
  '&',
  '!',
  '+=',
  '++',
];
const punctuation = ['(', ')', '{', '}', '[', ']', ',', ';', ';', ','];

/**
 * Minified-looking JavaScript: short local names (often two letters, as minifiers assign them),
 * property and global names, keywords, operators, numbers and strings, spaces only where
 * JavaScript needs them, one long line.
 */
export function minifiedJavaScript(bytes: number, seed = 3): string {
  const next = randomSource(seed);
  const pick = <T>(items: readonly T[]): T => items[next() % items.length]!;
  const local = () => (next() % 3 === 0 ? pick(localNames) + pick(localNames) : pick(localNames));
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const choice = next() % 12;
    let part: string;
    if (choice < 3) part = local();
    else if (choice < 5) part = `.${pick(propertyNames)}`;
    else if (choice < 7) part = pick(operators);
    else if (choice === 7) part = `${pick(keywords)} ${local()}`;
    else if (choice === 8) part = String(next() % 1_000);
    else if (choice === 9) part = `"${pick(propertyNames)}"`;
    else part = pick(punctuation);
    parts.push(part);
    length += part.length;
  }
  return parts.join('').slice(0, bytes);
}
