/**
 * What a check's planning reads of its start plan once (issue #18): the normalization of a plan object
 * (ADR-0415), a run's restamped start plan (ADR-0415), and record positions read over the planner's own
 * copy of a growing message array (ADR-0416) answer exactly what reading from scratch answers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type NormalizedPlan, normalizePlan, planRecords } from '../src/plan/normalize.js';
import { editPlan, normalizedPlanOf, restampedPlan } from '../src/planner/plan-edit.js';
import { createPlanningIndex, knownRecordPositions } from '../src/planner/planning-index.js';
import type { StoredEvent } from '../src/schemas/events.js';
import { extendThread, foldThreadEvents, sameMessageArrays, withOwnMessages } from '../src/thread/fold.js';
import { arbitraryCompactionPlan, arbitraryThread, arbitraryThreadEvents } from './support/testkit.js';

/** A normalization with its owner map as a plain `Map`, to compare with `toEqual`. */
function withActionsAsMap(normalized: NormalizedPlan): NormalizedPlan {
  return { ...normalized, actions: new Map(normalized.actions) };
}

const planCase = arbitraryThread({ maxTurns: 6 }).chain(({ thread }) =>
  fc.record({
    thread: fc.constant(thread),
    // Overlapping records included: plans with conflicts are normalized too.
    plans: fc.array(arbitraryCompactionPlan(thread, { maxRecords: 8 }), { minLength: 2, maxLength: 4 }),
  }),
);

describe("a check's start plan, read once (ADR-0415)", () => {
  it('a plan object normalized again, and a restamped copy, answer as normalizing it from scratch', () => {
    fc.assert(
      fc.property(planCase, ({ plans }) => {
        const [start, ...steps] = plans;
        const first = normalizedPlanOf(start!);
        expect(normalizedPlanOf(start!)).toBe(first);
        expect(withActionsAsMap(first)).toEqual(normalizePlan(start!));
        const restamped = restampedPlan(start!, {
          threadId: start!.threadId,
          basedOnSeq: start!.basedOnSeq + 1,
          createdAt: '2030-01-01T00:00:00.000Z',
          policyVersion: 'restamped',
        });
        expect(restamped.basedOnSeq).toBe(start!.basedOnSeq + 1);
        expect(restamped.policyVersion).toBe('restamped');
        expect(withActionsAsMap(normalizedPlanOf(restamped))).toEqual(normalizePlan(restamped));
        // Edited on from the restamped copy, as a run does: every plan still normalizes as from scratch.
        let plan = restamped;
        for (const step of steps) {
          const owned = new Set(normalizedPlanOf(plan).actions.keys());
          const added = planRecords(step).filter((record) => {
            const ids = record.span.messageIds;
            if (new Set(ids).size !== ids.length || ids.some((id) => owned.has(id))) return false;
            for (const id of ids) owned.add(id);
            return true;
          });
          plan = editPlan(plan, added, (record) => record.kind === 'clear', normalizedPlanOf(plan));
          expect(withActionsAsMap(normalizedPlanOf(plan))).toEqual(normalizePlan(plan));
        }
        expect(withActionsAsMap(normalizedPlanOf(start!))).toEqual(normalizePlan(start!));
        expect(withActionsAsMap(normalizedPlanOf(restamped))).toEqual(normalizePlan(restamped));
      }),
      { numRuns: 200 },
    );
  });
});

describe("record positions read over the planner's copy of a growing array (ADR-0416)", () => {
  it('are known for the array it copied while the two are equal, equal to looking each id up, and not after it grew', () => {
    const growingCase = arbitraryThreadEvents({ maxTurns: 5 }).chain((events) => {
      const fold = foldThreadEvents(events);
      return fc.record({
        events: fc.constant(events),
        plan: arbitraryCompactionPlan(fold.thread, { maxRecords: 6 }),
      });
    });
    fc.assert(
      fc.property(growingCase, ({ events, plan }) => {
        const fold = foldThreadEvents(events);
        const messages = fold.thread.messages;
        const own = withOwnMessages(fold.thread);
        expect(own.messages).not.toBe(messages);
        expect(sameMessageArrays(own.messages, messages)).toBe(true);
        expect(sameMessageArrays(messages, own.messages)).toBe(true);
        // A caller's copy is not known to be equal (nothing says it is never written).
        expect(sameMessageArrays(messages.slice(), messages)).toBe(false);
        const index = createPlanningIndex(own);
        const lookedUp = (ids: readonly string[]) =>
          ids.map((id) => messages.findIndex((message) => message.id === id));
        for (const record of planRecords(plan)) {
          const read = index.recordPositions(record);
          expect([...read]).toEqual(lookedUp(record.span.messageIds));
          expect(knownRecordPositions(record, messages)).toBe(read);
        }
        // One message appended: the fold's array grew in place, the copy did not.
        const last = events.at(-1)!;
        const appended = {
          tenantId: last.tenantId,
          threadId: last.threadId,
          timestamp: last.timestamp,
          eventId: 'appended-after-planning',
          seq: last.seq + 1,
          type: 'message.appended',
          message: { id: 'appended-after-planning', role: 'user', content: [{ type: 'text', text: 'more' }] },
        } as StoredEvent;
        const grown = extendThread(fold, [appended]).thread.messages;
        expect(sameMessageArrays(own.messages, grown)).toBe(false);
        for (const record of planRecords(plan)) expect(knownRecordPositions(record, grown)).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });
});
