import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildToolPairIndex,
  closeOverToolPairs,
  foldMore,
  foldThread,
  isTurnStart,
  snapToTurnStart,
  storedEventSchema,
  turnRanges,
} from '../src/index.js';
import { arbitraryThread } from './support/testkit.js';

const thread = arbitraryThread({ maxTurns: 6 });

describe('thread model (properties)', () => {
  it('foldThread numbers turns by the real user messages before each message', () => {
    fc.assert(
      fc.property(thread, ({ events, thread }) => {
        const appended = events.filter((event) => event.type === 'message.appended');
        expect(thread.messages).toHaveLength(appended.length);
        let turnStarts = 0;
        thread.messages.forEach((message, position) => {
          if (isTurnStart(message)) turnStarts += 1;
          expect(message.turn).toBe(turnStarts);
          expect(message.index).toBe(position);
          expect(message.seq).toBe(appended[position]!.seq);
          expect(message.id).toBe(
            appended[position]!.type === 'message.appended' && appended[position]!.message.id,
          );
        });
        // Turn ranges tile the message list in order.
        const ranges = turnRanges(thread.messages);
        expect(ranges.map((range) => range.end - range.start).reduce((a, b) => a + b, 0)).toBe(
          thread.messages.length,
        );
        ranges.forEach((range, position) => {
          expect(range.start).toBe(position === 0 ? 0 : ranges[position - 1]!.end);
          expect(
            thread.messages.slice(range.start, range.end).every((message) => message.turn === range.turn),
          ).toBe(true);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('generated events are valid stored events, and folding in pieces equals folding at once', () => {
    fc.assert(
      fc.property(thread, fc.nat(), ({ events, thread }, cut) => {
        for (const event of events) expect(storedEventSchema.parse(event)).toEqual(event);
        const split = 1 + (cut % events.length);
        expect(foldMore(foldThread(events.slice(0, split)), events.slice(split))).toEqual(thread);
      }),
      { numRuns: 100 },
    );
  });

  it('closeOverToolPairs is closed, contains its input, and adds only tool partners', () => {
    const withSubset = thread.chain(({ thread }) =>
      fc.tuple(fc.constant(thread), fc.subarray(thread.messages.map((message) => message.id))),
    );
    fc.assert(
      fc.property(withSubset, ([thread, subset]) => {
        const index = buildToolPairIndex(thread.messages);
        const closed = closeOverToolPairs(subset, index);
        for (const id of subset) expect(closed.has(id)).toBe(true);
        for (const pair of index.byCallId.values()) {
          if (pair.resultMessageId === undefined) continue;
          expect(closed.has(pair.callMessageId)).toBe(closed.has(pair.resultMessageId));
        }
        expect(closeOverToolPairs(closed, index)).toEqual(closed);
        const partners = (id: string) =>
          (index.callIdsByMessageId.get(id) ?? []).flatMap((callId) => {
            const pair = index.byCallId.get(callId)!;
            return [pair.callMessageId, pair.resultMessageId];
          });
        for (const id of closed) {
          if (subset.includes(id)) continue;
          expect(
            partners(id).some((partner) => partner !== id && partner !== undefined && closed.has(partner)),
          ).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('turn snapping lands on a turn start, skips none, and never separates a tool call from its result', () => {
    const withIndex = thread.chain(({ thread }) =>
      fc.tuple(fc.constant(thread), fc.integer({ min: -2, max: thread.messages.length + 2 })),
    );
    fc.assert(
      fc.property(withIndex, ([thread, raw]) => {
        const messages = thread.messages;
        const cut = snapToTurnStart(messages, raw);
        expect(cut).toBeGreaterThanOrEqual(Math.max(0, raw));
        if (cut < messages.length) expect(isTurnStart(messages[cut]!)).toBe(true);
        for (let between = Math.max(0, raw); between < Math.min(cut, messages.length); between += 1) {
          expect(isTurnStart(messages[between]!)).toBe(false);
        }
        const position = new Map(messages.map((message) => [message.id, message.index]));
        for (const pair of buildToolPairIndex(messages).byCallId.values()) {
          if (pair.resultMessageId === undefined) continue;
          const callBefore = position.get(pair.callMessageId)! < cut;
          const resultBefore = position.get(pair.resultMessageId)! < cut;
          expect(callBefore).toBe(resultBefore);
        }
      }),
      { numRuns: 200 },
    );
  });
});
