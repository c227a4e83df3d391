import { CompactorError } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EncodingName } from '../src/index.js';
import { encoderBackendNames, encodingNames, getEncoder } from '../src/index.js';

const strings = [
  '',
  'hello world',
  'The quick brown fox jumps over the lazy dog.',
  'Ünïcödé façade — naïve café: 日本語のテキスト、中文文本, 한국어, русский текст',
  'emoji 👩‍👩‍👧‍👦🚀✨🇫🇷 and a lone surrogate-free astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'export function add(a: number, b: number): number {\n\treturn a + b;\n}\n',
  '{"path":"/src/index.ts","args":["--filter","@compactor/tokenizer"],"n":12345678901234567890}',
  `${' '.repeat(1000)}x${'\n'.repeat(300)}y${'\t'.repeat(200)}`,
  'A literal <|endoftext|>, <|im_start|>user, <|fim_prefix|> and <|endofprompt|> are text.',
  '<|endoftext|>',
  'a'.repeat(1000),
];

describe.each(encodingNames)('%s backends', (encoding: EncodingName) => {
  const backends = encoderBackendNames.map((backend) => getEncoder(encoding, backend));

  it.each(strings.map((value, index) => [index, value] as const))(
    'agree on hand-written string %i',
    (_, value) => {
      const counts = backends.map((encoder) => encoder.countTokens(value));
      expect(new Set(counts).size).toBe(1);
    },
  );

  it('count special-token-looking text as text, never as one special token', () => {
    for (const encoder of backends) {
      expect(encoder.countTokens('<|endoftext|>')).toBeGreaterThan(1);
    }
  });

  it('agree on arbitrary unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (value) => {
        const counts = backends.map((encoder) => encoder.countTokens(value));
        return counts.every((count) => count === counts[0]);
      }),
      { numRuns: 150 },
    );
  });

  it('count more tokens for longer text of the same kind', () => {
    for (const encoder of backends) {
      expect(encoder.countTokens('word '.repeat(200))).toBeGreaterThan(
        encoder.countTokens('word '.repeat(100)),
      );
    }
  });
});

describe('getEncoder', () => {
  it('returns one encoder per backend and encoding', () => {
    expect(getEncoder('o200k_base', 'js-tiktoken')).toBe(getEncoder('o200k_base', 'js-tiktoken'));
    expect(getEncoder('o200k_base', 'js-tiktoken')).not.toBe(getEncoder('cl100k_base', 'js-tiktoken'));
  });

  it('rejects an unknown backend with a validation error', () => {
    expect.assertions(1);
    try {
      getEncoder('o200k_base', 'sentencepiece' as never);
    } catch (error) {
      expect(CompactorError.hasCode(error, 'validation')).toBe(true);
    }
  });

  it('differs between encodings on text they split differently', () => {
    const value = '日本語のテキストを数える';
    expect(getEncoder('o200k_base').countTokens(value)).not.toBe(
      getEncoder('cl100k_base').countTokens(value),
    );
  });
});
