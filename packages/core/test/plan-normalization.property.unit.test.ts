import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  actionFor,
  type CompactionPlan,
  type CompactionRecord,
  compactionPlanSchema,
  normalizePlan,
  recordsToPlanLists,
} from '../src/index.js';
import { planRecords } from '../src/plan/normalize.js';
import { arbitraryCompactionPlan, arbitraryThread } from './support/testkit.js';

/** ADR-0003's precedence, written down here rather than read from the code under test. */
const rank: Record<CompactionRecord['kind'], number> = {
  drop: 5,
  externalize: 4,
  summarize: 3,
  clear: 2,
  abridge: 1,
};

const threadAndPlan = arbitraryThread({ maxTurns: 4 }).chain(({ thread }) =>
  fc.tuple(fc.constant(thread), arbitraryCompactionPlan(thread, { maxRecords: 8 })),
);

describe('plan normalization (properties)', () => {
  it('generated plans are valid plans', () => {
    fc.assert(
      fc.property(threadAndPlan, ([, plan]) => {
        expect(compactionPlanSchema.parse(plan)).toEqual(plan);
      }),
      { numRuns: 100 },
    );
  });

  it('puts each message id in at most one record, the highest-ranked and then the earliest', () => {
    fc.assert(
      fc.property(threadAndPlan, ([thread, plan]) => {
        const normalized = normalizePlan(plan);
        const owners = new Map<string, CompactionRecord>();
        for (const record of normalized.records) {
          for (const id of record.span.messageIds) {
            expect(owners.has(id), `${id} is in two records`).toBe(false);
            owners.set(id, record);
          }
        }
        const records = planRecords(plan);
        for (const message of thread.messages) {
          const claimants = records.filter((record) => record.span.messageIds.includes(message.id));
          if (claimants.length === 0) {
            expect(actionFor(normalized, message.id)).toBe('include');
            expect(owners.has(message.id)).toBe(false);
            continue;
          }
          const best = Math.max(...claimants.map((record) => rank[record.kind]));
          const winner = claimants.find((record) => rank[record.kind] === best)!;
          expect(actionFor(normalized, message.id)).toBe(winner.kind);
          expect(normalized.actions.get(message.id)?.record).toBe(winner);
          // The reduced record that owns the id is the winner with some ids taken away.
          const owner = owners.get(message.id)!;
          expect({ ...owner, span: winner.span }).toEqual(winner);
        }
        expect(owners.size).toBe(normalized.actions.size);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps one reduced record per record that still owns ids, in order, and warns once per lost claim', () => {
    fc.assert(
      fc.property(threadAndPlan, ([, plan]) => {
        const normalized = normalizePlan(plan);
        let lostClaims = 0;
        const survivors: { record: CompactionRecord; owned: string[] }[] = [];
        for (const record of planRecords(plan)) {
          const owned = record.span.messageIds.filter((id) => normalized.actions.get(id)?.record === record);
          lostClaims += record.span.messageIds.length - owned.length;
          if (owned.length > 0) survivors.push({ record, owned });
        }
        expect(normalized.records).toHaveLength(survivors.length);
        normalized.records.forEach((reduced, position) => {
          const { record, owned } = survivors[position]!;
          expect(reduced.span.messageIds).toEqual(owned);
          expect({ ...reduced, span: record.span }).toEqual(record);
        });
        expect(normalized.warnings).toHaveLength(lostClaims);
      }),
      { numRuns: 200 },
    );
  });

  it('is idempotent: a normalized plan normalizes to itself without warnings', () => {
    fc.assert(
      fc.property(threadAndPlan, ([, plan]) => {
        const once = normalizePlan(plan);
        const rebuilt: CompactionPlan = { ...plan, ...recordsToPlanLists(once.records) };
        const twice = normalizePlan(rebuilt);
        expect(twice.warnings).toEqual([]);
        expect(twice.records).toEqual(once.records);
        expect(new Map([...twice.actions].map(([id, { action }]) => [id, action]))).toEqual(
          new Map([...once.actions].map(([id, { action }]) => [id, action])),
        );
      }),
      { numRuns: 200 },
    );
  });
});
