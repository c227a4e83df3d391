import { actionFor, type CompactionPlan, normalizePlan } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffPlans } from '../src/plans/plan-diff.js';

const ids = Array.from({ length: 12 }, (_, index) => `m${index}`);
const kinds = ['summarize', 'clear', 'drop', 'externalize', 'abridge'] as const;

/** A plan whose records cover arbitrary (possibly overlapping) runs of the messages. */
const planArbitrary = fc
  .array(
    fc.record({ kind: fc.constantFrom(...kinds), start: fc.nat(11), length: fc.integer({ min: 1, max: 4 }) }),
    {
      maxLength: 5,
    },
  )
  .map((records) => {
    // normalizePlan reads each record's kind and span ids only.
    const recordsOf = (kind: (typeof kinds)[number]) =>
      records
        .filter((record) => record.kind === kind)
        .map(({ start, length }) => ({
          kind,
          span: { messageIds: ids.slice(start, start + length), firstTurn: 0, lastTurn: 0 },
        }));
    return {
      threadId: 't',
      version: 1,
      basedOnSeq: 1,
      createdAt: 'x',
      summarizations: recordsOf('summarize'),
      clearings: recordsOf('clear'),
      drops: recordsOf('drop'),
      externalizations: recordsOf('externalize'),
      // An abridge record covers one message (ADR-0265).
      abridgements: recordsOf('abridge').map((record) => ({
        ...record,
        span: { ...record.span, messageIds: record.span.messageIds.slice(0, 1) },
      })),
    } as unknown as CompactionPlan;
  });

describe('diffPlans', () => {
  it('names exactly the messages whose action changed, once each, in log order, in uniform runs', () => {
    fc.assert(
      fc.property(fc.option(planArbitrary, { nil: null }), planArbitrary, (previous, next) => {
        const spans = diffPlans(ids, previous, next);
        const before = previous ? normalizePlan(previous) : null;
        const after = normalizePlan(next);
        const changed = ids.filter(
          (id) => (before ? actionFor(before, id) : 'include') !== actionFor(after, id),
        );
        expect(spans.flatMap((span) => span.messageIds)).toEqual(changed);
        for (const span of spans) {
          expect(span.fromMessageId).toBe(span.messageIds[0]);
          expect(span.toMessageId).toBe(span.messageIds.at(-1));
          for (const id of span.messageIds) {
            expect(before ? actionFor(before, id) : 'include').toBe(span.before);
            expect(actionFor(after, id)).toBe(span.after);
          }
        }
      }),
    );
  });

  it('is empty between a plan and itself', () => {
    fc.assert(
      fc.property(planArbitrary, (plan) => {
        expect(diffPlans(ids, plan, plan)).toEqual([]);
      }),
    );
  });
});
