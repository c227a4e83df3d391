/**
 * The abridge and externalize rungs read a step's proposals from their previous analysis under the same
 * regions (ADR-0380). Along a run of edits (records added, some removed, a merged block replacing its
 * parts) and plans that are no edit of the one before, each analysis must equal the rung's analysis from
 * nothing: a new planning index, so new regions and no previous analysis to read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planRecords } from '../src/plan/normalize.js';
import type { CompactionPlan } from '../src/plan/plan.js';
import { editPlan } from '../src/planner/plan-edit.js';
import type { PlannerInput, Rung, RungContext } from '../src/planner/planner-types.js';
import { createPlanningIndex, type PlanningIndex } from '../src/planner/planning-index.js';
import { computeProtectedRegions } from '../src/planner/protected-tail.js';
import { abridgeRung } from '../src/planner/rungs/abridge.js';
import { externalizeRung } from '../src/planner/rungs/externalize.js';
import type { ArtifactStore } from '../src/ports/artifact-store.js';
import type { CompactionPolicy } from '../src/schemas/policy.js';
import type { ThreadMessage } from '../src/thread/thread.js';
import { arbitraryCompactionPlan, arbitraryThread } from './support/testkit.js';

/** A deterministic stand-in for a tokenizer: both sides count alike. */
const countMessage = (message: ThreadMessage) => 5 + JSON.stringify(message.content).length / 4;

const runCase = arbitraryThread({ maxTurns: 7, hugeToolResults: true }).chain(({ thread }) =>
  fc.record({
    thread: fc.constant(thread),
    plans: fc.array(arbitraryCompactionPlan(thread, { maxRecords: 6, maxSpanLength: 10 }), {
      minLength: 1,
      maxLength: 7,
    }),
    removals: fc.array(fc.array(fc.boolean(), { maxLength: 12 }), { maxLength: 7 }),
    /** Per step: an edit of the plan before (true), or the arbitrary plan as it is (false). */
    edits: fc.array(fc.boolean(), { maxLength: 7 }),
    keepRecentTurns: fc.nat(3),
    externalizeThresholdTokens: fc.integer({ min: 1, max: 400 }),
    abridgeMinTokensFreed: fc.integer({ min: 1, max: 300 }),
    durability: fc.constantFrom('anchoring' as const, 'non_replayable' as const, 'replayable' as const),
  }),
);

describe('a rung step reads its proposals from the previous analysis (ADR-0380)', () => {
  it('abridge and externalize analyses along a run of plans equal analyses from nothing', () => {
    fc.assert(
      fc.property(runCase, (run) => {
        const policy: CompactionPolicy = {
          ...run.thread.policy,
          keepRecentTurns: run.keepRecentTurns,
          keepRecentTokens: 0,
          externalizeThresholdTokens: run.externalizeThresholdTokens,
          abridgeMinTokensFreed: run.abridgeMinTokensFreed,
          toolDurability: { defaultDurability: run.durability, overrides: {} },
        };
        const input = {
          thread: run.thread,
          countMessage,
          targetTokens: 10_000,
          artifactStore: {} as ArtifactStore,
        } as unknown as PlannerInput;
        const contextOf = (plan: CompactionPlan, index: PlanningIndex): RungContext => ({
          input,
          policy,
          plan,
          index,
          regions: computeProtectedRegions(
            run.thread,
            policy,
            countMessage,
            index.normalized(plan),
            input.targetTokens,
            index,
          ),
          tokensNow: 20_000,
          tokensToFree: 10_000,
        });
        const index = createPlanningIndex(run.thread);
        let plan = run.plans[0]!;
        const chain = [plan];
        run.plans.slice(1).forEach((step, position) => {
          if (run.edits[position] === false) {
            plan = step;
          } else {
            const remove = new Set(
              index.normalized(plan).records.filter((_, at) => run.removals[position]?.[at] === true),
            );
            plan = editPlan(plan, planRecords(step), (record) => remove.has(record), index.normalized(plan));
          }
          chain.push(plan);
        });
        // Each plan twice, then the first again: a repeated plan and a plan seen before are read too.
        for (const planned of [...chain, ...chain, chain[0]!]) {
          for (const rung of [abridgeRung, externalizeRung] as Rung[]) {
            const reused = rung.analyze(contextOf(planned, index));
            const fromNothing = rung.analyze(contextOf(planned, createPlanningIndex(run.thread)));
            expect(reused).toEqual(fromNothing);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
