import { CompactorError } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeThreadCursor, encodeThreadCursor } from '../src/thread-cursor.js';

describe('thread cursor', () => {
  it('round-trips any thread id', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        (threadId) => decodeThreadCursor(encodeThreadCursor(threadId)) === threadId,
      ),
    );
  });

  it('rejects a cursor it did not make with a ValidationError', () => {
    for (const cursor of ['not base64 json', Buffer.from('{"after":3}').toString('base64url'), '']) {
      let caught: unknown;
      try {
        decodeThreadCursor(cursor);
      } catch (error) {
        caught = error;
      }
      expect(CompactorError.hasCode(caught, 'validation')).toBe(true);
    }
  });
});
