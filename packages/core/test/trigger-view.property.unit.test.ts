import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extendTriggerView, messagesForTrigger, normalizePlan, type ThreadMessage } from '../src/index.js';
import { arbitraryCompactionPlan, arbitraryThread } from './support/testkit.js';

/** The rule, written out independently: messages no record hides (cleared ones still show). */
function shown(messages: readonly ThreadMessage[], plan: Parameters<typeof normalizePlan>[0] | null) {
  if (!plan) return [...messages];
  const actions = normalizePlan(plan).actions;
  return messages.filter((message) => {
    const action = actions.get(message.id)?.action;
    return action === undefined || action === 'clear';
  });
}

const scenario = arbitraryThread({ maxTurns: 6 }).chain(({ thread }) =>
  fc.record({
    thread: fc.constant(thread),
    plan: fc.option(arbitraryCompactionPlan(thread, { maxRecords: 5 }), { nil: null }),
    cuts: fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, thread.messages.length) }), { maxLength: 4 }),
  }),
);

describe('extendTriggerView (properties)', () => {
  it('extended message by message, or in any chunks, equals the view of the whole thread', () => {
    fc.assert(
      fc.property(scenario, ({ thread, plan, cuts }) => {
        const expected = shown(thread.messages, plan);
        expect(messagesForTrigger(thread.messages, plan)).toEqual(expected);
        const bounds = [...cuts.filter((cut) => cut < thread.messages.length).sort((a, b) => a - b)];
        let view = extendTriggerView(undefined, thread.messages.slice(0, bounds[0] ?? 0), plan);
        for (const bound of [...bounds.slice(1), thread.messages.length]) {
          const before = [...view.messages];
          const next = extendTriggerView(view, thread.messages.slice(0, bound), plan);
          // An earlier view is never changed by extending it.
          expect(view.messages).toEqual(before);
          view = next;
        }
        expect(view.messages).toEqual(expected);
        expect(view.messages.map((message) => message.id)).toEqual(expected.map((message) => message.id));
      }),
      { numRuns: 150 },
    );
  });

  it('starts again for another plan object or a message list that is not an extension', () => {
    fc.assert(
      fc.property(scenario, ({ thread, plan }) => {
        const view = extendTriggerView(undefined, thread.messages, plan);
        expect(extendTriggerView(view, thread.messages, null).messages).toEqual(shown(thread.messages, null));
        const reordered = [...thread.messages].reverse();
        expect(extendTriggerView(view, reordered, plan).messages).toEqual(shown(reordered, plan));
        const shorter = thread.messages.slice(0, -1);
        expect(extendTriggerView(view, shorter, plan).messages).toEqual(shown(shorter, plan));
      }),
      { numRuns: 100 },
    );
  });
});
