/**
 * The planning index (ADR-0280) answers what the planner computed from scratch before it: the protected
 * regions through one run's index and its memo equal the regions computed directly from the thread, for
 * every plan the run goes through, in any order, and the tail's tool-pair edge equals the closure's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type NormalizedPlan, normalizePlan, planRecords } from '../src/plan/normalize.js';
import { structuralTurnCandidates, type TurnCandidate } from '../src/planner/candidates.js';
import { keptUserMessageIds } from '../src/planner/kept-user-words.js';
import { editPlan, normalizedPlanOf } from '../src/planner/plan-edit.js';
import type { RungContext } from '../src/planner/planner-types.js';
import { createPlanningIndex } from '../src/planner/planning-index.js';
import { computeProtectedRegions, protectedTail } from '../src/planner/protected-tail.js';
import { holdsOpaquePart } from '../src/schemas/content.js';
import type { CompactionPolicy } from '../src/schemas/policy.js';
import type { Thread, ThreadMessage } from '../src/thread/thread.js';
import { buildToolPairIndex, closeOverToolPairs } from '../src/thread/tool-pairs.js';
import { turnRanges } from '../src/thread/turns.js';
import { arbitraryCompactionPlan, arbitraryThread } from './support/testkit.js';

/** A deterministic stand-in for a tokenizer: what matters is that both sides count alike. */
const countMessage = (message: ThreadMessage) => 5 + JSON.stringify(message.content).length / 4;

/** The regions as computed before the index existed: everything derived from the thread, every time. */
function regionsFromScratch(
  thread: Thread,
  policy: CompactionPolicy,
  normalized: NormalizedPlan,
  targetTokens: number,
) {
  const messages = thread.messages;
  const pairs = buildToolPairIndex(messages);
  const units = messages.map((message) => ({
    turn: message.turn,
    tokens: normalized.actions.get(message.id)?.action === 'drop' ? 0 : countMessage(message),
  }));
  const withPartners = (start: number) => {
    const ids = closeOverToolPairs(
      messages.slice(start).map((message) => message.id),
      pairs,
    );
    let edge = start;
    for (const message of messages) if (ids.has(message.id)) edge = Math.min(edge, message.index);
    return edge;
  };
  const tail = protectedTail(units, {
    keepRecentTurns: policy.keepRecentTurns,
    keepRecentTokens: policy.keepRecentTokens,
    lastTurn: messages.at(-1)?.turn ?? 0,
    shrinkAbove: targetTokens / 2,
    withPartners,
  });
  const pinned = messages
    .filter((message) => message.pinned === true || message.role === 'system' || holdsOpaquePart(message))
    .map((message) => message.id);
  const untouchable = closeOverToolPairs(pinned, pairs);
  const keptUserWords = keptUserMessageIds(thread, policy, countMessage, normalized);
  for (const id of keptUserWords) untouchable.add(id);
  return { protectedStart: tail.start, rule: tail.rule, untouchable, keptUserWords };
}

const runCase = arbitraryThread({ maxTurns: 7 }).chain(({ thread }) =>
  fc.record({
    thread: fc.constant(thread),
    plans: fc.array(arbitraryCompactionPlan(thread, { maxRecords: 8 }), { minLength: 1, maxLength: 5 }),
    keepRecentTurns: fc.nat(4),
    keepRecentTokens: fc.integer({ min: 0, max: 3000 }),
    keepUserTokens: fc.integer({ min: 0, max: 400 }),
    targetTokens: fc.integer({ min: 100, max: 20_000 }),
  }),
);

describe('the planning index equals planning from scratch (ADR-0280)', () => {
  it('protected regions through one index, plan after plan (repeats included), equal the direct ones', () => {
    fc.assert(
      fc.property(runCase, (run) => {
        const policy: CompactionPolicy = {
          ...run.thread.policy,
          keepRecentTurns: run.keepRecentTurns,
          keepRecentTokens: run.keepRecentTokens,
          keepUserTokens: run.keepUserTokens,
        };
        const index = createPlanningIndex(run.thread);
        // Each plan twice, and the first again at the end: the memo must answer for the plan it is given.
        for (const plan of [...run.plans, ...run.plans, run.plans[0]!]) {
          const normalized = index.normalized(plan);
          expect(normalized).toEqual(normalizePlan(plan));
          const viaIndex = computeProtectedRegions(
            run.thread,
            policy,
            countMessage,
            normalized,
            run.targetTokens,
            index,
          );
          expect(viaIndex).toEqual(regionsFromScratch(run.thread, policy, normalized, run.targetTokens));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('protected regions along a run of edits (records kept across steps, some removed) equal the direct ones (ADR-0325)', () => {
    fc.assert(
      fc.property(
        runCase.chain((run) =>
          fc.tuple(fc.constant(run), fc.array(fc.array(fc.boolean(), { maxLength: 12 }), { maxLength: 5 })),
        ),
        ([run, removals]) => {
          const policy: CompactionPolicy = {
            ...run.thread.policy,
            keepRecentTurns: run.keepRecentTurns,
            keepRecentTokens: run.keepRecentTokens,
            keepUserTokens: run.keepUserTokens,
          };
          const index = createPlanningIndex(run.thread);
          // The committed plan, then each further arbitrary plan's records added as a step would, some
          // of the current records taken out (a merged summary block replaces its parts).
          let plan = run.plans[0]!;
          const chain = [plan];
          run.plans.slice(1).forEach((step, position) => {
            const remove = new Set(
              index.normalized(plan).records.filter((_, at) => removals[position]?.[at] === true),
            );
            plan = editPlan(plan, planRecords(step), (record) => remove.has(record), index.normalized(plan));
            chain.push(plan);
          });
          for (const planned of [...chain, ...chain]) {
            const normalized = index.normalized(planned);
            const fresh = normalizePlan(planned);
            expect(withActionsAsMap(normalized)).toEqual(fresh);
            // The same owners by identity too (a record a conflict reduced is owned as its copy).
            for (const [id, { record }] of fresh.actions)
              expect(normalized.actions.get(id)?.record).toBe(record);
            expect(
              computeProtectedRegions(run.thread, policy, countMessage, normalized, run.targetTokens, index),
            ).toEqual(regionsFromScratch(run.thread, policy, normalized, run.targetTokens));
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('summarized and dropped messages per turn, and the structural candidates, along a run of edits equal a walk over every turn (ADR-0350)', () => {
    const editCase = arbitraryThread({ maxTurns: 7 }).chain(({ thread }) =>
      fc.record({
        thread: fc.constant(thread),
        // Long spans of summaries and drops, so whole turns are hidden and stop being hidden again.
        plans: fc.array(arbitraryCompactionPlan(thread, { maxRecords: 6, maxSpanLength: 14 }), {
          minLength: 1,
          maxLength: 6,
        }),
        removals: fc.array(fc.array(fc.boolean(), { maxLength: 12 }), { maxLength: 6 }),
        keepRecentTurns: fc.nat(3),
        splitTurn: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(editCase, (run) => {
        const policy: CompactionPolicy = {
          ...run.thread.policy,
          keepRecentTurns: run.keepRecentTurns,
          keepRecentTokens: 0,
        };
        const index = createPlanningIndex(run.thread);
        let plan = run.plans[0]!;
        const chain = [plan];
        run.plans.slice(1).forEach((step, position) => {
          const remove = new Set(
            index.normalized(plan).records.filter((_, at) => run.removals[position]?.[at] === true),
          );
          plan = editPlan(plan, planRecords(step), (record) => remove.has(record), index.normalized(plan));
          chain.push(plan);
        });
        for (const planned of chain) {
          const fresh = normalizePlan(planned);
          const expected = turnRanges(run.thread.messages).map((range) => {
            let hidden = 0;
            for (let position = range.start; position < range.end; position += 1) {
              const action = fresh.actions.get(run.thread.messages[position]!.id)?.action;
              if (action === 'summarize' || action === 'drop') hidden += 1;
            }
            return hidden;
          });
          // Counted step by step (each plan from its parent's counts) and from nothing (a new index).
          expect([...index.hiddenPerTurn(planned)]).toEqual(expected);
          // The per-position flags the counts are kept with, which `keptUserMessageIds` reads (ADR-0386).
          expect([...index.hiddenAt(planned)]).toEqual(
            run.thread.messages.map((message) => {
              const action = fresh.actions.get(message.id)?.action;
              return action === 'summarize' || action === 'drop' ? 1 : 0;
            }),
          );
          expect([...createPlanningIndex(run.thread).hiddenPerTurn(planned)]).toEqual(expected);
          const context = {
            input: { thread: run.thread },
            plan: planned,
            index,
            regions: computeProtectedRegions(
              run.thread,
              policy,
              countMessage,
              index.normalized(planned),
              10_000,
              index,
            ),
          } as unknown as RungContext;
          expect([...structuralTurnCandidates(context, { splitTurn: run.splitTurn })]).toEqual(
            candidatesWalkingEveryTurn(context, run.splitTurn),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it('an edit adding records disjoint from what it keeps is normalized as from scratch, step after step (ADR-0325)', () => {
    const editCase = arbitraryThread({ maxTurns: 7 }).chain(({ thread }) =>
      fc.record({
        thread: fc.constant(thread),
        plans: fc.array(arbitraryCompactionPlan(thread, { maxRecords: 5, maxSpanLength: 8 }), {
          minLength: 2,
          maxLength: 6,
        }),
        removals: fc.array(fc.array(fc.boolean(), { maxLength: 12 }), { maxLength: 6 }),
      }),
    );
    fc.assert(
      fc.property(editCase, (run) => {
        let plan = run.plans[0]!;
        const chain = [plan];
        run.plans.slice(1).forEach((step, position) => {
          const normalized = normalizedPlanOf(plan);
          const remove = new Set(normalized.records.filter((_, at) => run.removals[position]?.[at] === true));
          // Only the step's records that name no id a kept record or an earlier added record names.
          const taken = new Set(
            normalized.records
              .filter((record) => !remove.has(record))
              .flatMap((record) => record.span.messageIds),
          );
          const added = planRecords(step).filter((record) => {
            const ids = record.span.messageIds;
            if (new Set(ids).size !== ids.length || ids.some((id) => taken.has(id))) return false;
            for (const id of ids) taken.add(id);
            return true;
          });
          plan = editPlan(plan, added, (record) => remove.has(record), normalized);
          chain.push(plan);
          const known = normalizedPlanOf(plan);
          const fresh = normalizePlan(plan);
          expect(withActionsAsMap(known)).toEqual(fresh);
          for (const [id, { record }] of fresh.actions) expect(known.actions.get(id)?.record).toBe(record);
        });
        // Each edit took its owner map over from its parent's (ADR-0385): every earlier plan still answers
        // as it did, read through the later ones, and a parent edited again takes the map back.
        for (const planned of [...chain].reverse()) {
          const known = normalizedPlanOf(planned);
          const fresh = normalizePlan(planned);
          expect(withActionsAsMap(known)).toEqual(fresh);
          for (const [id, { record }] of fresh.actions) expect(known.actions.get(id)?.record).toBe(record);
          for (const message of run.thread.messages)
            expect(known.actions.get(message.id)?.record).toBe(fresh.actions.get(message.id)?.record);
        }
        // An edited plan whose map a later edit took (any but the last) is edited again: it takes the map back.
        const earlier = chain[chain.length > 2 ? 1 : 0]!;
        const again = editPlan(earlier, [], () => false, normalizedPlanOf(earlier));
        expect(withActionsAsMap(normalizedPlanOf(again))).toEqual(normalizePlan(again));
        for (const planned of chain)
          expect(withActionsAsMap(normalizedPlanOf(planned))).toEqual(normalizePlan(planned));
      }),
      { numRuns: 200 },
    );
  });

  it("the tail's tool-pair edge equals the closure's earliest message", () => {
    fc.assert(
      fc.property(
        arbitraryThread({ maxTurns: 6 }).chain(({ thread }) =>
          fc.tuple(fc.constant(thread), fc.nat(Math.max(0, thread.messages.length))),
        ),
        ([thread, start]) => {
          const ids = closeOverToolPairs(
            thread.messages.slice(start).map((message) => message.id),
            buildToolPairIndex(thread.messages),
          );
          const expected = Math.min(
            start,
            ...thread.messages.filter((message) => ids.has(message.id)).map((message) => message.index),
          );
          expect(createPlanningIndex(thread).partnersEdge(start)).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** A normalization with its owner map as a plain `Map` (an edit's is a `VersionedActions`, ADR-0385), to compare with `toEqual`. */
function withActionsAsMap(normalized: NormalizedPlan): NormalizedPlan {
  return { ...normalized, actions: new Map(normalized.actions) };
}

/** `structuralTurnCandidates` as it was before turns were passed over by their counts: every turn's messages read. */
function candidatesWalkingEveryTurn(context: RungContext, splitTurn: boolean): TurnCandidate[] {
  const normalized = normalizePlan(context.plan);
  const actionOf = (message: ThreadMessage) => normalized.actions.get(message.id)?.action ?? 'include';
  const messages = context.input.thread.messages;
  const pairs = buildToolPairIndex(messages);
  const candidates: TurnCandidate[] = [];
  const edge = context.regions.protectedStart;
  for (const range of turnRanges(messages)) {
    const split = range.end > edge;
    if (split && !(splitTurn && range.start < edge)) break;
    const taken = messages.slice(range.start, Math.min(range.end, edge)).filter((message) => {
      const action = actionOf(message);
      return (
        !context.regions.untouchable.has(message.id) &&
        (action === 'include' || action === 'clear' || action === 'abridge' || action === 'externalize')
      );
    });
    if (taken.length === 0) {
      if (split) break;
      continue;
    }
    const takenIds = new Set(taken.map((message) => message.id));
    const closure = closeOverToolPairs(takenIds, pairs);
    const orphans = [...closure].some(
      (id) => !takenIds.has(id) && actionOf(messages.find((message) => message.id === id)!) !== 'drop',
    );
    if (orphans) {
      if (split) break;
      continue;
    }
    candidates.push({ turn: range.turn, messages: taken });
    if (split) break;
  }
  return candidates;
}
