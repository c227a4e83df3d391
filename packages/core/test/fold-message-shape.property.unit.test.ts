/**
 * ADR-0406: a folded message is built with `Object.assign` and three stores instead of an object spread (so that
 * messages share hidden classes); it must be exactly what the spread made: the same keys in the same order, the
 * same values, the same JSON.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldThread, type StoredEvent } from '../src/index.js';
import { arbitraryThread } from './support/testkit.js';

const thread = arbitraryThread({ maxTurns: 6 });

describe('folded messages (ADR-0406)', () => {
  it('are the appended message spread with seq, index and turn: same keys in the same order, same JSON', () => {
    fc.assert(
      fc.property(thread, ({ events, thread }) => {
        const appended = events.flatMap((event) => (event.type === 'message.appended' ? [event] : []));
        thread.messages.forEach((message, position) => {
          const event = appended[position]!;
          const spread = { ...event.message, seq: event.seq, index: position, turn: message.turn };
          expect(Object.keys(message)).toEqual(Object.keys(spread));
          expect(JSON.stringify(message)).toBe(JSON.stringify(spread));
          expect(Object.getPrototypeOf(message)).toBe(Object.prototype);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an own `__proto__` key a key, as the spread did, and the prototype plain', () => {
    const message = JSON.parse(
      '{"id":"m1","role":"user","content":[{"type":"text","text":"hi"}],"__proto__":{"x":1}}',
    );
    const events = [
      {
        eventId: 'e1',
        tenantId: 't',
        threadId: 'th',
        seq: 1,
        timestamp: '2025-01-01T00:00:00.000Z',
        type: 'thread.created',
        model: 'm',
        contextWindow: 1000,
      },
      {
        eventId: 'e2',
        tenantId: 't',
        threadId: 'th',
        seq: 2,
        timestamp: '2025-01-01T00:00:00.000Z',
        type: 'message.appended',
        message,
      },
    ] as unknown as StoredEvent[];
    const [folded] = foldThread(events).messages;
    expect(Object.getPrototypeOf(folded)).toBe(Object.prototype);
    expect(Object.hasOwn(folded!, '__proto__')).toBe(true);
    expect(Object.keys(folded!)).toEqual(['id', 'role', 'content', '__proto__', 'seq', 'index', 'turn']);
  });
});
