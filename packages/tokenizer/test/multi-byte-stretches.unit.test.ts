import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EncodingName,
  getDefaultCountingEncoder,
  getEncoder,
  minimumWasmStretch,
  type TokenEncoder,
  withMultiByteStretchesOnWasm,
} from '../src/index.js';
import { referenceCount } from './helpers.js';

/**
 * Long multi-byte stretches go to tiktoken's WASM core (ADR-0101): the count must be exactly the
 * reference's (js-tiktoken, not the code under test) whichever library counted, and only such
 * stretches may take that path.
 */

const encodings: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

const multiByteAlphabets = [
  '的一是不了人我在有他这为之大来以个中上们，。、「」',
  'あいうえおかきくけこアイウエオカタカナ',
  'привет мир съешь же ещё этих',
  'สวัสดีครับภาษาไทย่้๊๋',
  '안녕하세요한국어',
  'مرحبا بالعالم',
  '🙂😀👍🏽🇫🇷',
  'é\u0301ñ\u0303',
];

/** Multi-byte text, long enough to take the WASM path, sometimes with ASCII mixed in. */
const multiByteText = fc
  .tuple(
    fc.constantFrom(...multiByteAlphabets),
    fc.array(fc.nat(), { minLength: 0, maxLength: 400 }),
    fc.option(fc.constantFrom('a', ' ', '\n', '1', 'The '), { nil: undefined }),
    fc.nat(),
  )
  .map(([alphabet, picks, ascii, at]) => {
    const characters = [...alphabet];
    const text = picks.map((pick) => characters[pick % characters.length]).join('');
    if (ascii === undefined) return text;
    const position = text.length === 0 ? 0 : at % text.length;
    return text.slice(0, position) + ascii + text.slice(position);
  });

function spy(encoding: EncodingName): TokenEncoder & { texts: string[] } {
  const texts: string[] = [];
  const plain = getEncoder(encoding);
  return {
    backend: 'spy',
    encoding,
    texts,
    countTokens: (text) => {
      texts.push(text);
      return plain.countTokens(text);
    },
  };
}

describe('long multi-byte stretches on the WASM encoder', () => {
  it('counts multi-byte text exactly as the reference does, whichever library counts it', () => {
    for (const encoding of encodings) {
      const encoder = getDefaultCountingEncoder(encoding);
      fc.assert(
        fc.property(multiByteText, (text) => {
          expect(encoder.countTokens(text)).toBe(referenceCount(text, encoding));
        }),
        { numRuns: 150 },
      );
    }
  });

  it('hands the WASM encoder only stretches without ASCII, and loads it on the first one', () => {
    const primary = spy('o200k_base');
    const wasm = spy('o200k_base');
    let loads = 0;
    const encoder = withMultiByteStretchesOnWasm(primary, () => {
      loads += 1;
      return wasm;
    });
    const cjk = '的一是不了人我在有他这为之大来以个中上们'.repeat(10);
    encoder.countTokens('ordinary text that is long enough to count, but all of it is ASCII.');
    encoder.countTokens(cjk.slice(0, minimumWasmStretch - 1));
    encoder.countTokens(`${cjk} and some ASCII`);
    expect(loads).toBe(0);
    encoder.countTokens(cjk);
    encoder.countTokens(cjk.slice(1));
    expect(loads).toBe(1);
    expect(wasm.texts).toEqual([cjk, cjk.slice(1)]);
    expect(primary.texts).toHaveLength(3);
  });

  it('leaves text with a lone surrogate to the primary encoder', () => {
    const primary = spy('o200k_base');
    const wasm = spy('o200k_base');
    const encoder = withMultiByteStretchesOnWasm(primary, () => wasm);
    const cjk = '的一是不了人我在有他这为之大来以个中上们'.repeat(5);
    for (const text of [`${cjk}\ud83d`, `\ude00${cjk}`, `${cjk}\ud83d${cjk}`]) encoder.countTokens(text);
    encoder.countTokens(`${cjk}🙂${cjk}`);
    expect(primary.texts).toHaveLength(3);
    expect(wasm.texts).toEqual([`${cjk}🙂${cjk}`]);
  });

  it('counts a long CJK run through bounded counting exactly as the plain encoder does', async () => {
    const { countBounded, defaultCountingBounds } = await import('../src/index.js');
    let state = 11;
    const next = () => {
      state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
      return state;
    };
    const cjk = Array.from({ length: 20_000 }, () => String.fromCharCode(0x4e00 + (next() % 0x5200))).join(
      '',
    );
    for (const encoding of encodings) {
      expect(countBounded(getDefaultCountingEncoder(encoding), cjk, defaultCountingBounds)).toBe(
        countBounded(getEncoder(encoding), cjk, defaultCountingBounds),
      );
    }
  });
});
