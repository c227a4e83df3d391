import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CountingBounds,
  countBounded,
  createCountCache,
  defaultCountingBounds,
  getEncoder,
  type ProviderTokenizer,
  segmentText,
  type TokenEncoder,
  type TokenizerFamily,
  tokenizerForThread,
} from '../src/index.js';
import { spyEncoder } from './helpers.js';

/**
 * ADR-0460: `countJoined(parts)` is `count(parts.join(''))` for every tokenizer family the registry
 * resolves, whatever the parts (the joins it cannot sum across are counted whole), and bounded
 * counting's short-text path gives what cutting the text gives.
 */

const families: readonly TokenizerFamily[] = [
  'o200k_base',
  'cl100k_base',
  'claude-estimate',
  'gemini-estimate',
];

function tokenizerOf(family: TokenizerFamily, cache: boolean): ProviderTokenizer {
  return tokenizerForThread(
    {
      model: `joined-test-${family}`,
      contextWindow: 200_000,
      maxOutputTokens: 8_000,
      tokenizerFamily: family,
    },
    { cache: cache ? createCountCache() : false },
  );
}

/** Words and awkward pieces: leading and trailing spaces, digits, unicode, marks, `\r`, tabs, slashes. */
const piece = fc.oneof(
  fc.constantFrom(
    'user:',
    'assistant:',
    'Step',
    '13618:',
    'fix',
    'router',
    'src/router/router-2.ts.',
    '(turn 12)',
    '(turn ?)',
    ' ',
    '  ',
    '\t',
    '\n',
    '\r',
    '\r\n',
    '\n\n',
    '/',
    '//',
    '!\n/',
    '123',
    '4567',
    'a1',
    'über',
    'e\u0301',
    '数据库连接',
    '🙂',
    '👍🏽',
    '\ud83d',
    "don't",
    '.',
    '...',
    '—',
    '',
  ),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: 0, max: 99_999 }).map(String),
);
const awkwardText = (maxPieces: number) =>
  fc.array(piece, { maxLength: maxPieces }).map((pieces) => pieces.join(''));
/** A long run of one class (letters, punctuation, whitespace, line tails, CJK) that bounded counting cuts. */
const longRun = fc
  .tuple(fc.constantFrom('a', '=', ' ', '\n/', '的', 'ab'), fc.integer({ min: 80, max: 400 }))
  .map(([unit, times]) => unit.repeat(times));
const part = fc.oneof({ weight: 6, arbitrary: awkwardText(40) }, { weight: 1, arbitrary: longRun });

/** Lines of a recall block: a label, a middle of at least the memoized length, a last word. */
const hitText = fc
  .tuple(fc.constantFrom('user', 'assistant', 'Melanie', 'tool'), awkwardText(60), awkwardText(3))
  .map(([label, middle, last]) => `${label}: ${middle} ${last}`);

function hitParts(text: string): string[] {
  const first = text.indexOf(' ');
  const last = text.lastIndexOf(' ');
  if (first <= 0 || last === first) return [text];
  return [text.slice(0, first), text.slice(first, last), text.slice(last)];
}

function blockParts(hits: readonly { text: string; turn: number }[]): string[] {
  const parts = ['[Recalled from earlier in this conversation]\n(Ephemeral: shown for this turn only.)\n'];
  hits.forEach((hit, position) => {
    const [head, middle = '', tail = ''] = hitParts(hit.text);
    parts.push(`(turn ${hit.turn}) ${head}`, middle, position < hits.length - 1 ? `${tail}\n` : tail);
  });
  return parts;
}

describe('countJoined (ADR-0460)', () => {
  it('equals counting the joined text, for every tokenizer family, over arbitrary parts', () => {
    for (const family of families) {
      const joined = tokenizerOf(family, true);
      const fresh = tokenizerOf(family, false);
      fc.assert(
        fc.property(fc.array(part, { maxLength: 8 }), (parts) => {
          // Each part counted first in some other text, so its memo entry is there when the join is summed.
          for (const each of parts) joined.countJoined([each]);
          expect(joined.countJoined(parts)).toBe(fresh.count(parts.join('')));
          expect(joined.countExact(parts.join(''))).toBe(fresh.countExact(parts.join('')));
        }),
        { numRuns: 120 },
      );
    }
  });

  it('counts a recall block as sent from its hits counted first, sharing one cache', () => {
    for (const family of families) {
      const joined = tokenizerOf(family, true);
      const fresh = tokenizerOf(family, false);
      fc.assert(
        fc.property(
          fc.array(fc.record({ text: hitText, turn: fc.nat({ max: 20_000 }) }), {
            minLength: 1,
            maxLength: 6,
          }),
          (hits) => {
            for (const hit of hits)
              expect(joined.countJoined(hitParts(hit.text))).toBe(fresh.count(hit.text));
            const parts = blockParts(hits);
            const text = parts.join('');
            expect(joined.countJoined(parts)).toBe(fresh.count(text));
            const message = {
              id: 'block',
              role: 'user' as const,
              content: [{ type: 'text' as const, text }],
            };
            expect(joined.countMessage(message, 'anthropic')).toBe(fresh.countMessage(message, 'anthropic'));
          },
        ),
        { numRuns: 80 },
      );
    }
  });

  it('encodes the middles it memoized once: the block hands the encoder only what lies between them', () => {
    const encoder = spyEncoder('o200k_base');
    const tokenizer = tokenizerForThread(
      {
        model: 'joined-test-spy',
        contextWindow: 200_000,
        maxOutputTokens: 8_000,
        tokenizerFamily: 'o200k_base',
      },
      { encoder, cache: createCountCache() },
    );
    const hits = [3, 7, 11].map((turn) => ({
      turn,
      text: `user: Step ${turn}: the scheduler, the router and the renderer were checked again at turn ${turn} done`,
    }));
    for (const hit of hits) tokenizer.countJoined(hitParts(hit.text));
    encoder.calls.length = 0;
    const parts = blockParts(hits);
    tokenizer.countJoined(parts);
    tokenizer.countExact(parts.join(''));
    for (const hit of hits) {
      const middle = hitParts(hit.text)[1]!;
      expect(encoder.calls.some((call) => call.includes(middle))).toBe(false);
    }
    expect(encoder.calls.length).toBeGreaterThan(0);
  });

  it('counts the joined text whole where a join is no pre-token boundary', () => {
    const fresh = tokenizerOf('o200k_base', false);
    const joined = tokenizerOf('o200k_base', true);
    // "." then "\n": o200k makes ".\n" one piece; "a" then "b" one word; a space after a space.
    for (const parts of [
      ['x'.repeat(70), '.\n'.repeat(40)],
      ['word'.repeat(20), 'more'.repeat(20)],
      [`${'a '.repeat(40)} `, ` ${'b '.repeat(40)}`],
    ]) {
      expect(joined.countJoined(parts)).toBe(fresh.count(parts.join('')));
    }
  });
});

/** `countBounded` as it was before its short-text path (ADR-0460): the reference. */
function countBoundedByCutting(encoder: TokenEncoder, text: string, bounds: CountingBounds): number {
  let total = 0;
  let start = 0;
  for (const { end, inexact } of segmentText(text, bounds)) {
    if (!inexact && end < text.length) continue;
    total += encoder.countTokens(text.slice(start, end));
    if (inexact) total += bounds.tokensPerCut;
    start = end;
  }
  return total;
}

describe('bounded counting of a text of at most two slices (ADR-0460)', () => {
  const encoder = getEncoder('o200k_base');
  const smallBounds: CountingBounds = { maxRunBytes: 24, sliceLength: 24, tokensPerCut: 2 };
  const text = fc.array(part, { maxLength: 12 }).map((parts) => parts.join(''));

  it('counts what cutting the text counts, at the default bounds and at small ones', () => {
    for (const bounds of [defaultCountingBounds, smallBounds]) {
      fc.assert(
        fc.property(text, (value) => {
          expect(countBounded(encoder, value, bounds)).toBe(countBoundedByCutting(encoder, value, bounds));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('counts what cutting counts at two slices and around the run bound', () => {
    const lengths = [2047, 2048, 2049];
    for (const length of lengths) {
      for (const unit of ['a', 'ab ', 'a.', '的。', '的', '=', ' ', '🙂', 'word 12 ']) {
        const value = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
        expect(countBounded(encoder, value, defaultCountingBounds)).toBe(
          countBoundedByCutting(encoder, value, defaultCountingBounds),
        );
      }
    }
    for (const bytes of [255, 256, 257]) {
      for (const value of [
        'a'.repeat(bytes),
        '的'.repeat(Math.ceil(bytes / 3)),
        `x ${'='.repeat(bytes)} y`,
      ]) {
        expect(countBounded(encoder, value, defaultCountingBounds)).toBe(
          countBoundedByCutting(encoder, value, defaultCountingBounds),
        );
      }
    }
  });
});
