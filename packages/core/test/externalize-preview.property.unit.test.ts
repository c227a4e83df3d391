import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { previewOf } from '../src/planner/rungs/externalize.js';

/** The definition the preview had before ADR-0346: the whole text collapsed, trimmed and cut. */
const wholeTextPreview = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300);

// Whitespace of every kind \s and trim() know (line terminators, NBSP, BOM, ideographic space), in runs.
const whitespace = fc.constantFrom(
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '\u00a0',
  '\ufeff',
  '\u2028',
  '\u3000',
  ' \n\t ',
);
const word = fc.string({ minLength: 1, maxLength: 12 });
// Long runs put the edge of the prefix the preview reads anywhere in the collapsed text.
const longRun = fc
  .tuple(fc.constantFrom(' ', '\n', 'a'), fc.nat({ max: 2500 }))
  .map(([character, count]) => character.repeat(count));
const piece = fc.oneof(word, whitespace, fc.string({ maxLength: 3 }), longRun);

describe('the externalization preview (ADR-0346)', () => {
  it('equals the whole-text preview for texts around and far beyond the prefix it reads', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 800 }),
        fc.nat({ max: 6000 }),
        fc.boolean(),
        (pieces, padding, padWithSpace) => {
          // Long whitespace runs at the start make the prefix collapse to little: the scan must read on.
          const pad = (padWithSpace ? ' \n' : 'x').repeat(padding);
          const text = padWithSpace ? pad + pieces.join('') : pieces.join('') + pad;
          expect(previewOf(text)).toBe(wholeTextPreview(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('is right at the edges: a collapsed prefix of 299, 300 and 301 characters, a trailing space', () => {
    const body = 'a'.repeat(299);
    for (const text of [
      `${body}b`,
      `${body}b `,
      `${body}bc`,
      `   ${body}b\n\n\n`,
      `${body} b${' '.repeat(2000)}`,
      // The prefix read first collapses to 300 characters whose last is a space the whole text trims.
      `${body}${' '.repeat(5000)}`,
      // ... and to 299, with more words beyond it.
      `${'a'.repeat(298)}${' '.repeat(902)}bcd`,
    ]) {
      expect(previewOf(text)).toBe(wholeTextPreview(text));
    }
  });

  it('is empty for a text of whitespace only, however long', () => {
    expect(previewOf(' \n\t'.repeat(5000))).toBe('');
  });
});
