import {
  type CompactionPlan,
  createPlanningIndex,
  editPlan,
  foldThread,
  normalizePlan,
  type ProviderName,
  type Thread,
  tokenBudget,
} from '@compactor/core';
import { arbitraryCompactionPlan, arbitraryThread } from '@compactor/testkit/arbitraries';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ConversationMeasure,
  createRenderCache,
  measureConversation,
  renderPromptSync,
} from '../src/index.js';
import { deriveResolution, resolvePlan } from '../src/plan/resolve-plan.js';
import { indexToolExchanges } from '../src/plan/tool-exchanges.js';
import { renderInput } from './support/render-helpers.js';
import { PROVIDERS, tokenizerFor } from './support/tokenizers.js';

const UNBOUNDED = tokenBudget({
  maxInputTokens: Number.MAX_SAFE_INTEGER,
  safetyBufferTokens: 0,
  rehydrationReserveTokens: 0,
});

/**
 * A planner's sequence of plans on a random thread (tool calls, subagents, images, huge outputs):
 * unrelated random plans (overlapping records of every kind, some over ids past the thread's end)
 * interleaved with a ladder's cumulative edits of them (records added, older ones replaced).
 */
const scenario = arbitraryThread({ maxTurns: 5 }).chain(({ thread }) =>
  fc.record({
    thread: fc.constant(thread),
    plans: fc.array(
      fc.tuple(arbitraryCompactionPlan(thread, { maxRecords: 5, maxSpanLength: 8 }), fc.boolean()),
      { minLength: 1, maxLength: 6 },
    ),
    provider: fc.constantFrom<ProviderName>(...PROVIDERS),
  }),
);

function ladderOf(plans: readonly [CompactionPlan, boolean][]): CompactionPlan[] {
  const sequence: CompactionPlan[] = [];
  let climbed: CompactionPlan | undefined;
  for (const [plan, replaces] of plans) {
    sequence.push(plan);
    const records = normalizePlan(plan).records;
    // A chained step replaces what it covers, as a consolidating summary does.
    climbed = climbed
      ? editPlan(climbed, records, (record) => replaces && record.kind === records[0]?.kind)
      : plan;
    sequence.push(climbed);
  }
  return sequence;
}

describe('measuring a plan from the previous measurement (ADR-0300)', () => {
  it('equals a full render’s message tokens, and leaves renders from the shared cache unchanged', {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(scenario, ({ thread, plans, provider }) => {
        const tokenizer = tokenizerFor(provider);
        const cache = createRenderCache();
        let previous: ConversationMeasure | undefined;
        for (const plan of [null, ...ladderOf(plans)]) {
          previous = measureConversation({ thread, plan, provider, tokenizer, cache }, previous);
          const input = renderInput(provider, thread, plan, {
            budget: UNBOUNDED,
            system: '',
            tools: [],
            recall: false,
          });
          const fresh = renderPromptSync({ ...input, cache: createRenderCache() });
          expect(previous.tokens).toBe(fresh.tokens.messages);
          // The shared cache now holds derived resolutions: a render through it is the same request.
          const shared = renderPromptSync({ ...input, cache });
          expect(shared.request).toEqual(fresh.request);
          expect(shared.report.warnings).toEqual(fresh.report.warnings);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('extends a plan’s measurement as the thread grows, as a check after an append does', {
    timeout: 120_000,
  }, () => {
    const grown = arbitraryThread({ maxTurns: 5 }).chain(({ events }) =>
      fc.record({
        events: fc.constant(events),
        cuts: fc.uniqueArray(fc.integer({ min: 1, max: events.length }), { minLength: 1, maxLength: 4 }),
        plan: arbitraryCompactionPlan(foldThread(events), { maxRecords: 5, maxSpanLength: 8 }),
        provider: fc.constantFrom<ProviderName>(...PROVIDERS),
      }),
    );
    fc.assert(
      fc.property(grown, ({ events, cuts, plan, provider }) => {
        const tokenizer = tokenizerFor(provider);
        const cache = createRenderCache();
        const fullCount = (thread: Thread) =>
          renderPromptSync({
            ...renderInput(provider, thread, plan, {
              budget: UNBOUNDED,
              system: '',
              tools: [],
              recall: false,
            }),
            cache: createRenderCache(),
          }).tokens.messages;
        // Each check folds the log again (a new messages array) and measures the same plan with a new measurer.
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          const thread = foldThread(events.slice(0, cut));
          expect(measureConversation({ thread, plan, provider, tokenizer, cache }).tokens).toBe(
            fullCount(thread),
          );
        }
      }),
      { numRuns: 150 },
    );
  });

  it('derives the resolution a full resolution gives', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), ({ thread, plans }, planned) => {
        const exchanges = indexToolExchanges(thread.messages, undefined);
        const positions = new Map(thread.messages.map((message, position) => [message.id, position]));
        fc.pre(positions.size === thread.messages.length);
        // As after a planning run of this thread: its records' positions known (ADR-0388), read instead of ids.
        const index = planned ? createPlanningIndex(thread) : undefined;
        let base = resolvePlan(thread, undefined, exchanges, undefined, undefined);
        for (const plan of ladderOf(plans)) {
          const normalized = normalizePlan(plan);
          for (const record of normalized.records) index?.recordPositions(record);
          const derived = deriveResolution(thread, normalized, exchanges, undefined, base, (id) =>
            positions.get(id),
          );
          const full = resolvePlan(thread, normalized, exchanges, undefined, undefined);
          expect(derived.actions).toEqual(full.actions);
          expect(derived.planned).toEqual(full.planned);
          expect(new Map([...derived.repairs].sort(([a], [b]) => a - b))).toEqual(
            new Map([...full.repairs].sort(([a], [b]) => a - b)),
          );
          expect(derived.plannedIdsSeen).toBe(full.plannedIdsSeen);
          base = derived;
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('extending a measurement in its own buffers (ADR-0370)', () => {
  /** What a basis says by position, copied out of its (shared) buffers. */
  const snapshot = (measure: ConversationMeasure) => {
    const basis = measure.basis;
    if (!basis) return undefined;
    return {
      size: basis.size,
      sum: basis.sum,
      visited: [...basis.visited],
      hasSlot: [...basis.hasSlot],
      slotTokens: [...basis.slotTokens],
    };
  };

  it('equals a measurement from nothing after each append, and leaves earlier measurements as they were', {
    timeout: 120_000,
  }, () => {
    const grown = arbitraryThread({ maxTurns: 6 }).chain(({ events }) =>
      fc.record({
        events: fc.constant(events),
        cuts: fc.uniqueArray(fc.integer({ min: 1, max: events.length }), { minLength: 1, maxLength: 6 }),
        plan: arbitraryCompactionPlan(foldThread(events), { maxRecords: 5, maxSpanLength: 8 }),
        provider: fc.constantFrom<ProviderName>(...PROVIDERS),
        forkAt: fc.nat(),
      }),
    );
    fc.assert(
      fc.property(grown, ({ events, cuts, plan, provider, forkAt }) => {
        const tokenizer = tokenizerFor(provider);
        const cache = createRenderCache();
        const fromNothing = (thread: Thread) =>
          measureConversation({ thread, plan, provider, tokenizer, cache: createRenderCache() });
        const earlier: { measure: ConversationMeasure; seen: ReturnType<typeof snapshot> }[] = [];
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          const thread = foldThread(events.slice(0, cut));
          const measure = measureConversation({ thread, plan, provider, tokenizer, cache });
          const fresh = fromNothing(thread);
          expect(measure.tokens).toBe(fresh.tokens);
          expect(snapshot(measure)).toEqual(snapshot(fresh));
          // The later extension wrote into shared buffers: what each earlier one shows is unchanged.
          for (const { measure: before, seen } of earlier) expect(snapshot(before)).toEqual(seen);
          earlier.push({ measure, seen: snapshot(measure) });
        }
        // An earlier measurement extended again (a fork: the buffers already hold a longer one).
        const fork = earlier[forkAt % earlier.length]!.measure;
        const whole = foldThread(events);
        const again = measureConversation({ thread: whole, plan, provider, tokenizer, cache }, fork);
        expect(snapshot(again)).toEqual(snapshot(fromNothing(whole)));
        for (const { measure: before, seen } of earlier) expect(snapshot(before)).toEqual(seen);
      }),
      { numRuns: 100 },
    );
  });
});
