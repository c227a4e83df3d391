/**
 * An owner map whose merged records take over the slots of the records they absorb (ADR-0455) answers, for
 * every plan of a branching run of edits, exactly what normalizing that plan from scratch answers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  actionOfRecord,
  type NormalizedPlan,
  normalizePlan,
  planRecords,
  recordsToPlanLists,
} from '../src/plan/normalize.js';
import type { CompactionPlan } from '../src/plan/plan.js';
import { rememberRecordParts } from '../src/plan/record-parts.js';
import type { CompactionRecord } from '../src/plan/records.js';
import { VersionedActions } from '../src/plan/versioned-actions.js';
import { editPlan, normalizedPlanOf } from '../src/planner/plan-edit.js';
import { arbitraryCompactionPlan, arbitraryThread } from './support/testkit.js';

/** One step: edit one of the plans so far, merging some of its records (nested) with new ones. */
const step = fc.record({
  parent: fc.nat(),
  merged: fc.array(fc.boolean(), { maxLength: 10 }),
  nestAt: fc.nat(),
  withNew: fc.boolean(),
  removeOthers: fc.array(fc.boolean(), { maxLength: 10 }),
  alsoAdded: fc.boolean(),
  /** The same parts merged twice: their ids named by two added records, a conflict. */
  twice: fc.boolean(),
});

const runCase = arbitraryThread({ maxTurns: 7 }).chain(({ thread }) =>
  fc.record({
    thread: fc.constant(thread),
    start: arbitraryCompactionPlan(thread, { maxRecords: 6, maxSpanLength: 8 }),
    additions: fc.array(arbitraryCompactionPlan(thread, { maxRecords: 3, maxSpanLength: 6 }), {
      minLength: 1,
      maxLength: 8,
    }),
    steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  }),
);

/** A record naming the union of `parts`' ids (each once), its parts remembered, nested at `nestAt`. */
function mergedOf(parts: readonly CompactionRecord[], nestAt: number): CompactionRecord {
  const union = (records: readonly CompactionRecord[]): CompactionRecord => {
    const ids = [...new Set(records.flatMap((record) => record.span.messageIds))];
    const record = { ...records[0]!, span: { ...records[0]!.span, messageIds: ids } } as CompactionRecord;
    rememberRecordParts(record, records);
    return record;
  };
  // As consolidation merges pairwise: an inner merge that no plan holds, then the rest.
  const split = parts.length > 2 ? 1 + (nestAt % (parts.length - 1)) : parts.length;
  if (split >= parts.length) return union(parts);
  return union([union(parts.slice(0, split)), ...parts.slice(split)]);
}

/** A normalization with its owner map as a plain `Map`, to compare with `toEqual`. */
function withActionsAsMap(normalized: NormalizedPlan): NormalizedPlan {
  return { ...normalized, actions: new Map(normalized.actions) };
}

function expectAsFromScratch(plan: CompactionPlan, ids: readonly string[]): void {
  const known = normalizedPlanOf(plan);
  const fresh = normalizePlan(plan);
  expect(withActionsAsMap(known)).toEqual(fresh);
  expect(known.actions.size).toBe(fresh.actions.size);
  for (const id of ids) {
    expect(known.actions.get(id)?.record).toBe(fresh.actions.get(id)?.record);
    expect(known.actions.get(id)?.action).toBe(fresh.actions.get(id)?.action);
    expect(known.actions.has(id)).toBe(fresh.actions.has(id));
  }
}

describe('owner map slots (ADR-0455)', () => {
  it('merged records taking over their parts answer as a normalization from scratch, in every version', {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(runCase, (run) => {
        const ids = run.thread.messages.map((message) => message.id);
        // Ids past the thread's end too: the plans name some.
        for (const plan of [run.start, ...run.additions])
          for (const record of planRecords(plan)) ids.push(...record.span.messageIds);
        const plans: CompactionPlan[] = [editPlan(run.start, [])];
        run.steps.forEach((edit, at) => {
          const parent = plans[edit.parent % plans.length]!;
          const records = normalizedPlanOf(parent).records;
          const parts = records.filter((_, index) => edit.merged[index] === true);
          const extra = planRecords(run.additions[at % run.additions.length]!);
          if (edit.withNew && extra[0]) parts.push(extra[0]);
          const added = parts.length > 0 ? [mergedOf(parts, edit.nestAt)] : [];
          if (edit.alsoAdded && extra[1]) added.push(extra[1]);
          if (edit.twice && parts.length > 0) added.push(mergedOf(parts, edit.nestAt + 1));
          const merged = new Set(parts);
          const remove = (record: CompactionRecord) =>
            merged.has(record) || edit.removeOthers[records.indexOf(record)] === true;
          const edited = editPlan(parent, added, remove, normalizedPlanOf(parent));
          plans.push(edited);
          expectAsFromScratch(edited, ids);
        });
        // Each edit moved the maps to itself: every earlier plan still answers as it did.
        for (const plan of [...plans].reverse()) expectAsFromScratch(plan, ids);
        for (const plan of plans) expectAsFromScratch(plan, ids);
      }),
      { numRuns: 200 },
    );
  });

  it('a map not known to share one owner per record finds a merged part by its ids, with the same answers', {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(runCase, fc.array(fc.boolean(), { maxLength: 10 }), fc.nat(), (run, merged, nestAt) => {
        const normalized = normalizePlan(run.start);
        fc.pre(normalized.warnings.length === 0);
        // A copy with one owner object per id: nothing tells the derive its owners are shared.
        const perId = new Map([...normalized.actions].map(([id, owner]) => [id, { ...owner }]));
        const parts = normalized.records.filter((_, index) => merged[index] === true);
        fc.pre(parts.length > 0);
        const merge = mergedOf(parts, nestAt);
        const removed = new Set(parts);
        const derived = VersionedActions.derive(perId, removed, [
          { ids: merge.span.messageIds, owner: { action: actionOfRecord(merge), record: merge } },
        ]);
        const kept = normalized.records.filter((record) => !removed.has(record));
        const fresh = normalizePlan({ ...run.start, ...recordsToPlanLists([...kept, merge]) });
        expect(derived).toBeDefined();
        expect(new Map(derived!)).toEqual(fresh.actions);
        for (const id of run.thread.messages.map((message) => message.id))
          expect(derived!.get(id)?.record).toBe(fresh.actions.get(id)?.record);
      }),
      { numRuns: 200 },
    );
  });
});
