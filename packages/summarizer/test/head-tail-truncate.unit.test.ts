import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headTailTruncate } from '../src/index.js';

/** The last link of the fallback chain (ADR-0017): the first and last 2,000 characters, the cut marked. */
describe('headTailTruncate', () => {
  it('keeps the first 2,000 and the last 2,000 characters of a long text, with the cut marked', () => {
    const text = `${'h'.repeat(2_000)}${'m'.repeat(5_000)}${'t'.repeat(2_000)}`;
    expect(headTailTruncate(text)).toBe(
      `${'h'.repeat(2_000)}\n[truncated 5000 characters]\n${'t'.repeat(2_000)}`,
    );
  });

  it('returns a text of at most 4,000 characters unchanged', () => {
    const text = 'x'.repeat(4_000);
    expect(headTailTruncate(text)).toBe(text);
  });

  it('keeps no tail when asked for none', () => {
    expect(headTailTruncate('abcdef', 2, 0)).toBe('ab\n[truncated 4 characters]\n');
  });

  it('always starts with the head and ends with the tail, and says how much it cut', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 0, maxLength: 300 }),
        fc.nat(100),
        fc.nat(100),
        (text, head, tail) => {
          const result = headTailTruncate(text, head, tail);
          if (text.length <= head + tail) return result === text;
          const cut = text.length - head - tail;
          const marker = `\n[truncated ${cut} characters]\n`;
          return (
            result.length === head + marker.length + tail &&
            result.startsWith(text.slice(0, head)) &&
            result.endsWith(text.slice(text.length - tail)) &&
            result.includes(`[truncated ${cut} characters]`)
          );
        },
      ),
    );
  });
});
