import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  extendThread,
  foldThread,
  foldThreadEvents,
  type PolicyPatch,
  type StoredEvent,
  storedEventSchema,
  type ThreadFold,
} from '../src/index.js';
import { arbitraryThreadEvents } from './support/testkit.js';

/** Events a thread's log may hold besides messages: each must leave the fold consistent. */
type Extra =
  | { type: 'thread.branched'; sourceThreadId: string; fromMessageId: string; sourceVersion: number }
  | { type: 'policy.updated'; patch: PolicyPatch }
  | {
      type: 'plan.committed';
      planVersion: number;
      basedOnSeq: number;
      tokensBefore: number;
      tokensAfter: number;
    }
  | { type: 'lifecycle'; name: 'compaction_completed'; details: Record<string, unknown> };

const patch: fc.Arbitrary<PolicyPatch> = fc.record(
  {
    autoCompact: fc.boolean(),
    softThresholdPercent: fc.double({ min: 0.05, max: 1, noNaN: true }),
    keepRecentTurns: fc.integer({ min: 0, max: 12 }),
    keepRecentTokens: fc.integer({ min: 0, max: 400_000 }),
    outputReserveTokens: fc.integer({ min: 0, max: 300_000 }),
    safetyBufferTokens: fc.integer({ min: 0, max: 300_000 }),
    clearAtLeastTokens: fc.integer({ min: 0, max: 50_000 }),
    summaryBudgetTokens: fc.integer({ min: 1, max: 300_000 }),
    maxSummarizationRounds: fc.integer({ min: 1, max: 9 }),
  },
  { requiredKeys: [] },
);

const extra: fc.Arbitrary<Extra> = fc.oneof(
  fc.record({
    type: fc.constant('thread.branched' as const),
    sourceThreadId: fc.constantFrom('source-a', 'source-b'),
    fromMessageId: fc.constantFrom('m1', 'm7'),
    sourceVersion: fc.nat({ max: 50 }),
  }),
  fc.record({ type: fc.constant('policy.updated' as const), patch }),
  fc.record({
    type: fc.constant('plan.committed' as const),
    planVersion: fc.integer({ min: 1, max: 9 }),
    basedOnSeq: fc.nat({ max: 50 }),
    tokensBefore: fc.nat({ max: 5_000 }),
    tokensAfter: fc.nat({ max: 5_000 }),
  }),
  fc.record({
    type: fc.constant('lifecycle' as const),
    name: fc.constant('compaction_completed' as const),
    details: fc.constant({}),
  }),
);

/** A generated thread with extra events inserted after random positions, renumbered. */
const log = arbitraryThreadEvents({ maxTurns: 6 }).chain((events) =>
  fc
    .array(fc.record({ after: fc.nat({ max: events.length - 1 }), event: extra }), { maxLength: 8 })
    .map((extras) => {
      const out: StoredEvent[] = [];
      events.forEach((event, position) => {
        out.push(event);
        for (const { after, event: inserted } of extras) {
          if (after !== position) continue;
          out.push({ ...event, ...inserted, eventId: `x${out.length}` } as unknown as StoredEvent);
        }
      });
      return out.map((event, position) => {
        const renumbered = { ...event, seq: position + 1 } as StoredEvent;
        // Inserted events keep only their own payload fields.
        if (renumbered.type !== 'message.appended') delete (renumbered as { message?: unknown }).message;
        return renumbered;
      });
    }),
);

/** Cut points splitting [1, length) into chunks, sorted and distinct. */
const cuts = (length: number) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 6 })
    .map((points) => points.filter((point) => point < length).sort((left, right) => left - right));

describe('extendThread (properties)', () => {
  it('folding a prefix then extending with the rest, in any chunks, equals folding everything at once', () => {
    fc.assert(
      fc.property(
        log.chain((events) => fc.record({ events: fc.constant(events), points: cuts(events.length) })),
        ({ events, points }) => {
          for (const event of events) storedEventSchema.parse(event);
          const whole = foldThread(events);
          const bounds = [...points, events.length];
          let fold: ThreadFold = foldThreadEvents(events.slice(0, bounds[0]));
          for (let chunk = 1; chunk < bounds.length; chunk += 1) {
            const before = structuredClone(fold.thread);
            const next = extendThread(fold, events.slice(bounds[chunk - 1], bounds[chunk]));
            // Pure: the fold it started from is unchanged.
            expect(fold.thread).toEqual(before);
            fold = next;
          }
          expect(fold.thread).toEqual(whole);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('skips events it has already folded, and a fork of an earlier fold is its own', () => {
    fc.assert(
      fc.property(log, fc.nat(), (events, at) => {
        const split = 1 + (at % events.length);
        const head = foldThreadEvents(events.slice(0, split));
        const overlapping = extendThread(head, events.slice(Math.max(0, split - 3)));
        expect(overlapping.thread).toEqual(foldThread(events));
        // Extending the same head again (a fork) must not see the first extension's ids.
        expect(extendThread(head, events.slice(split)).thread).toEqual(foldThread(events));
      }),
      { numRuns: 100 },
    );
  });

  it('rejects a message id that is already folded, and events of another thread', () => {
    fc.assert(
      fc.property(log, (events) => {
        const fold = foldThreadEvents(events);
        const message = fold.thread.messages[0];
        if (!message) return;
        const last = events.at(-1)!;
        const again = {
          ...last,
          eventId: 'again',
          seq: last.seq + 1,
          type: 'message.appended',
          message: { id: message.id, role: 'user', content: [{ type: 'text', text: 'again' }] },
        } as unknown as StoredEvent;
        expect(() => extendThread(fold, [again])).toThrowError(/appears twice/);
        const foreign = {
          ...again,
          threadId: 'another',
          message: { id: 'fresh', role: 'user', content: [{ type: 'text', text: 'x' }] },
        } as unknown as StoredEvent;
        expect(() => extendThread(fold, [foreign])).toThrowError(/another thread/);
      }),
      { numRuns: 30 },
    );
  });
});
