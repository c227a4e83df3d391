import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableMessageId } from '../src/index.js';

describe('stableMessageId (ADR-0084)', () => {
  it('keeps the ids adapters derived before it moved to core (node:crypto SHA-256 of the same JSON)', () => {
    // Computed with node:crypto's createHash('sha256') over the same JSON: stored threads keep deduplicating.
    expect(
      stableMessageId(3, { role: 'user', content: [{ type: 'text', text: 'Check every service log.' }] }),
    ).toBe('m3-b8d74fac531ee712');
  });

  it('is the same for the same position and content, and differs when either differs', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.string(), fc.string(), (position, left, right) => {
        const id = (at: number, text: string) =>
          stableMessageId(at, { role: 'assistant', content: [{ type: 'text', text }] });
        expect(id(position, left)).toBe(id(position, left));
        expect(id(position, left) === id(position, right)).toBe(left === right);
        expect(id(position, left)).not.toBe(id(position + 1, left));
      }),
    );
  });
});
