import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CountingBounds,
  countBounded,
  countBoundedYielding,
  defaultCountingBounds,
  type EncodingName,
  getDefaultCountingEncoder,
  getEncoder,
  segmentText,
  type TokenEncoder,
} from '../src/index.js';
import { referenceCount } from './helpers.js';

/**
 * What bounded counting promises: the same count as the plain encoder for ordinary text, never
 * less than it for anything, and no piece handed to the encoder longer than the bound. The
 * reference count is js-tiktoken's (not the code under test), on inputs small enough for it.
 */

const encodings: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

function reference(encoding: EncodingName): TokenEncoder {
  return {
    backend: 'js-tiktoken-reference',
    encoding,
    countTokens: (text) => referenceCount(text, encoding),
  };
}

const noYield = async () => {};

/**
 * The plain default backend and what `createTokenizer` counts with by default (long multi-byte
 * stretches on tiktoken's WASM core, ADR-0101): every promise holds for both.
 */
function countingEncoders(encoding: EncodingName): TokenEncoder[] {
  return [getEncoder(encoding), getDefaultCountingEncoder(encoding)];
}

/** Ordinary prose and code: words, identifiers, numbers, punctuation, indentation, short CJK phrases. */
const ordinaryToken = fc.oneof(
  fc.constantFrom(
    'the',
    'The',
    'model',
    'context',
    'window',
    'compaction',
    "don't",
    "it's",
    'über',
    'naïve',
    'café',
    'function',
    'return',
    'const',
    'await',
    'import',
    'export',
    'null',
    'undefined',
    'True',
    'self',
    'getUserById',
    'snake_case_name',
    'HTTPServer',
    'x',
    'i',
    'README.md',
    'src/index.ts',
    '/usr/bin/env',
    'https://example.com/a/b?c=d',
    '数据库连接',
    '今天天气很好',
    'こんにちは',
    'Привет',
    '🙂',
  ),
  fc.integer({ min: 0, max: 1_000_000 }).map(String),
  fc.constantFrom(
    '.',
    ',',
    ';',
    ':',
    '!',
    '?',
    '(',
    ')',
    '{',
    '}',
    '[',
    ']',
    '=>',
    '===',
    '+=',
    '"',
    "'",
    '`',
    '#',
    '//',
    '/*',
    '*/',
    '->',
    '::',
    '...',
    '-',
    '—',
    '，',
    '。',
  ),
);
const separator = fc.constantFrom(
  ' ',
  ' ',
  ' ',
  '',
  '\n',
  '\n\n',
  '\n    ',
  '\n\t',
  '  ',
  ', ',
  '. ',
  '\r\n',
);
const ordinaryText = (maxTokens: number, minTokens = 0) =>
  fc
    .array(fc.tuple(ordinaryToken, separator), { minLength: minTokens, maxLength: maxTokens })
    .map((parts) => parts.flat().join(''));

/** Adversarial alphabets: repeated letters, base64, CJK, emoji, punctuation, whitespace, marks, mixtures. */
const adversarialAlphabet = fc.constantFrom(
  'a',
  'ab',
  'aA',
  'abc',
  'a1',
  'xyz0123+/=',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  '的一是不了人我在有他这为之大来以个中上们',
  'あいうえおかきくけこ',
  '🙂😀👍🏽',
  '!?.,;:-=+*/\\(){}[]<>"\'',
  ' \t',
  ' \n',
  '\n/',
  '!\n/',
  'e\u0301a\u0300',
  'Ωωαβγδ',
  "ab !c\n/1's",
  'абвгд',
  'ก่อนที่จะ',
);
const adversarialText = (maxLength: number) =>
  fc.tuple(adversarialAlphabet, fc.array(fc.nat(), { minLength: 1, maxLength })).map(([alphabet, picks]) => {
    const characters = [...alphabet];
    return picks.map((pick) => characters[pick % characters.length]).join('');
  });

/** Small bounds make the cuts frequent, so short (exactly countable) texts exercise every rule. */
const smallBounds: CountingBounds = { maxRunBytes: 24, sliceLength: 24, tokensPerCut: 2 };

describe('bounded counting', () => {
  it('counts ordinary prose and code exactly as the plain encoder does', () => {
    for (const encoder of encodings.flatMap(countingEncoders)) {
      const encoding = encoder.encoding;
      fc.assert(
        fc.property(ordinaryText(400), (text) => {
          expect(countBounded(encoder, text, defaultCountingBounds)).toBe(referenceCount(text, encoding));
        }),
        { numRuns: 150 },
      );
    }
  });

  it('cuts ordinary text only where the count stays exact (slice cuts, async path)', async () => {
    for (const encoder of encodings.flatMap(countingEncoders)) {
      const encoding = encoder.encoding;
      await fc.assert(
        fc.asyncProperty(ordinaryText(150, 30), async (text) => {
          const bounds: CountingBounds = { maxRunBytes: 64, sliceLength: 64, tokensPerCut: 2 };
          const segments = [...segmentText(text, bounds)];
          expect(segments.every((segment) => !segment.inexact)).toBe(true);
          // Long enough to be cut: the exact cut rules are what is under test.
          if (text.length > 200) expect(segments.length).toBeGreaterThan(1);
          expect(await countBoundedYielding(encoder, text, bounds, 0, noYield)).toBe(
            referenceCount(text, encoding),
          );
        }),
        { numRuns: 300 },
      );
    }
  });

  it('never counts below the exact count, whatever the text (small bounds, many cuts)', async () => {
    for (const encoding of encodings) {
      const exact = reference(encoding);
      await fc.assert(
        fc.asyncProperty(fc.oneof(adversarialText(300), ordinaryText(60)), async (text) => {
          const bounded = countBounded(exact, text, smallBounds);
          expect(bounded).toBeGreaterThanOrEqual(referenceCount(text, encoding));
          // The yielding path cuts at every segment, exact ones too, and must agree.
          expect(await countBoundedYielding(exact, text, smallBounds, 0, noYield)).toBe(bounded);
        }),
        { numRuns: 400 },
      );
    }
  });

  it('pays for the token a cut can cost: two-letter runs cut once or twice', () => {
    // Cutting BPE input can make the whole one token longer than its parts (a merge across the
    // cut wins over merges on both sides); these texts meet that case within a few hundred runs.
    for (const encoding of encodings) {
      const exact = reference(encoding);
      fc.assert(
        fc.property(
          fc.constantFrom('ab', 'aA', 'abc', 'xy'),
          fc.array(fc.nat(), { minLength: 25, maxLength: 72 }),
          (alphabet, picks) => {
            const text = picks.map((pick) => alphabet[pick % alphabet.length]).join('');
            expect(countBounded(exact, text, smallBounds)).toBeGreaterThanOrEqual(
              referenceCount(text, encoding),
            );
          },
        ),
        { numRuns: 1_500 },
      );
    }
  });

  it('never counts below the exact count with the default bounds on over-long runs', () => {
    for (const encoder of encodings.flatMap(countingEncoders)) {
      const encoding = encoder.encoding;
      fc.assert(
        fc.property(adversarialText(1_500), (text) => {
          expect(countBounded(encoder, text, defaultCountingBounds)).toBeGreaterThanOrEqual(
            referenceCount(text, encoding),
          );
        }),
        { numRuns: 60 },
      );
    }
  });

  it('over-counts a long run by little: one letter, base64, CJK', () => {
    const encoder = getEncoder('o200k_base');
    let state = 7;
    const next = () => {
      state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
      return state;
    };
    const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const samples = {
      letter: 'a'.repeat(20_000),
      base64: Array.from({ length: 20_000 }, () => base64Alphabet[next() % 64]).join(''),
      cjk: Array.from({ length: 6_000 }, () => String.fromCharCode(0x4e00 + (next() % 0x5200))).join(''),
    };
    for (const [name, text] of Object.entries(samples)) {
      const exact = encoder.countTokens(text);
      const bounded = countBounded(encoder, text, defaultCountingBounds);
      expect(bounded, name).toBeGreaterThanOrEqual(exact);
      expect(bounded / exact, name).toBeLessThan(1.15);
    }
  });

  it('never hands the encoder a run of one character class longer than the bound', () => {
    const longest = (text: string) => {
      // The longest run of letters/marks, punctuation/symbols, whitespace, or [\r\n/], in UTF-8 bytes.
      const runs = text.match(/[\p{L}\p{M}]+|[^\s\p{L}\p{N}]+|\s+|[\r\n/]+/gu) ?? [];
      return Math.max(0, ...runs.map((run) => Buffer.byteLength(run)));
    };
    fc.assert(
      fc.property(
        fc
          .tuple(adversarialText(3_000), fc.integer({ min: 1, max: 40 }))
          .map(([text, times]) => text.repeat(times)),
        (text) => {
          const seen: string[] = [];
          const spy: TokenEncoder = {
            backend: 'spy',
            encoding: 'o200k_base',
            countTokens: (piece) => {
              seen.push(piece);
              return 1;
            },
          };
          countBounded(spy, text, defaultCountingBounds);
          for (const piece of seen) {
            // A piece may carry a run of another class only up to the same bound each.
            expect(longest(piece)).toBeLessThanOrEqual(defaultCountingBounds.maxRunBytes);
          }
          expect(seen.join('')).toBe(text);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('never splits a surrogate pair', () => {
    fc.assert(
      fc.property(adversarialText(2_000), (text) => {
        let start = 0;
        for (const { end } of segmentText(text, smallBounds)) {
          const piece = text.slice(start, end);
          expect(piece.length).toBeGreaterThan(0);
          expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(piece)).toBe(false);
          start = end;
        }
        expect(start).toBe(text.length);
      }),
      { numRuns: 200 },
    );
  });
});
