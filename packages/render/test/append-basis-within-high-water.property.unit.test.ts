import { type CompactionPlan, isTurnStart, type Thread } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderCache } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import {
  callPrefixes,
  notesSummaryPlan,
  RECALL_MARKER,
  recallNotesArbitraries,
  recallNotesThread,
  renderWithin,
  withAppendRecall,
} from './support/recall-notes-thread.js';
import { wireMessages, withoutCacheControl } from './support/render-helpers.js';

/**
 * Compacted notes, then agent turns that ask about some of them, worked through with tool calls; the
 * plan was made while the first of those turns was running (its basis is inside that turn).
 */
const scenario = fc.record({
  ...recallNotesArbitraries({
    notes: { minLength: 4, maxLength: 10 },
    turns: { minLength: 2, maxLength: 5 },
    maxExchanges: 2,
  }),
  share: fc.constantFrom(0.1, 0.25, 0.5),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function calls(
  { notes, turns, share }: Scenario,
  withinHighWater: number,
  basisAt: 'inside' | 'end' = 'inside',
): { prefixes: Thread[]; plan: CompactionPlan } {
  const { thread: built, compacted } = recallNotesThread('basis-hw', notes, turns, 1);
  const thread = withAppendRecall(built, {
    appendTurnShare: share,
    appendBasisWithinHighWater: withinHighWater,
  });
  // Basis: the first tool result of the first live turn (its opening, call and result are live), or
  // its last message, so that the next turn opens before any call under the plan.
  const nextOpening = thread.messages.findIndex(
    (message, index) => index > compacted && isTurnStart(message),
  );
  const basis = basisAt === 'inside' ? compacted + 2 : nextOpening - 1;
  const plan = notesSummaryPlan(thread, compacted, basis);
  return { prefixes: callPrefixes(thread, basis + 1), plan };
}

type Rendered = { request: unknown; total: number; ceiling: number } | null;

function renderCalls(
  input: Scenario,
  withinHighWater: number,
  maxInputTokens: number,
  basisAt: 'inside' | 'end' = 'inside',
): Rendered[] {
  const { prefixes, plan } = calls(input, withinHighWater, basisAt);
  const cache = createRenderCache();
  return prefixes.map((thread) => {
    try {
      const result = renderWithin(thread, plan, input.provider, maxInputTokens, cache);
      expect(validateProviderRequest(input.provider, result.request).errors).toEqual([]);
      return { request: result.request, total: result.tokens.total, ceiling: result.report.ceiling };
    } catch {
      return null;
    }
  });
}

/** Calls whose request does not extend the previous one's wire messages. */
function rewrites(rendered: readonly Rendered[]): number {
  let previous: unknown[] | undefined;
  let rewritten = 0;
  for (const call of rendered) {
    if (call === null) {
      previous = undefined;
      continue;
    }
    const wire = withoutCacheControl(wireMessages(call.request)) as unknown[];
    if (previous && JSON.stringify(wire.slice(0, previous.length)) !== JSON.stringify(previous))
      rewritten += 1;
    previous = wire;
  }
  return rewritten;
}

describe('the basis turn keeps its block while it fits up to the high-water mark (ADR-0465)', () => {
  it('with room at the high-water mark every request extends the previous one; without the option the block goes', {
    timeout: 60_000,
  }, () => {
    let without = 0;
    fc.assert(
      fc.property(scenario, (input) => {
        // A roomy window: 5% of a million tokens beside the messages at the high-water mark.
        expect(rewrites(renderCalls(input, 8, 1_000_000))).toBe(0);
        without += rewrites(renderCalls(input, 0, 1_000_000));
      }),
      { numRuns: 40 },
    );
    // Not vacuous: giving the basis turn a block only while it is the newest rewrote requests.
    expect(without).toBeGreaterThan(0);
  });

  it('a block larger than the bound goes as without the option: every request the same', {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(scenario, (input) => {
        // 1e-9 of the high-water room is under one token: no block is small enough to keep.
        const tiny = renderCalls(input, 1e-9, 1_000_000);
        const off = renderCalls(input, 0, 1_000_000);
        expect(tiny.map((call) => call?.request)).toEqual(off.map((call) => call?.request));
      }),
      { numRuns: 30 },
    );
  });

  it('a basis turn with no call under the plan gets no kept block: every request as without the option', {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const on = renderCalls(input, 8, 1_000_000, 'end');
        const off = renderCalls(input, 0, 1_000_000, 'end');
        expect(on.map((call) => call?.request)).toEqual(off.map((call) => call?.request));
      }),
      { numRuns: 30 },
    );
  });

  it('after a kept basis block no epoch restarts before the commit: the epoch is bounded as a restarted one', {
    timeout: 120_000,
  }, () => {
    /** Calls sending the basis turn's block after the next turn opened, and those of them that restarted an epoch. */
    const restartsBesideKept = (input: Scenario, restartBound: number, fraction: number) => {
      const { thread: built, compacted } = recallNotesThread('basis-hw', input.notes, input.turns, 1);
      const thread = withAppendRecall(built, {
        appendTurnShare: input.share,
        appendBasisWithinHighWater: 8,
        appendRestartWithinHighWater: restartBound,
      });
      const plan = notesSummaryPlan(thread, compacted, compacted + 2);
      const prefixes = callPrefixes(thread, compacted + 3);
      const roomy = renderWithin(prefixes.at(-1)!, plan, input.provider, 1_000_000, createRenderCache());
      const ceiling = Math.max(1, Math.floor(roomy.tokens.total * fraction));
      const cache = createRenderCache();
      let kept = 0;
      let restarted = 0;
      for (const prefix of prefixes) {
        let result: ReturnType<typeof renderWithin>;
        try {
          result = renderWithin(prefix, plan, input.provider, ceiling, cache);
        } catch {
          continue;
        }
        const wire = (withoutCacheControl(wireMessages(result.request)) as unknown[]).map((m) =>
          JSON.stringify(m),
        );
        const opening = wire.findIndex((text) => text.includes('Question 0:'));
        const basisKept = opening >= 0 && wire[opening + 1]?.includes(RECALL_MARKER) === true;
        if (!basisKept || !wire.some((text) => text.includes('Question 1:'))) continue;
        kept += 1;
        if (result.report.recall.epochRestarted) restarted += 1;
      }
      return { kept, restarted };
    };
    let keptCalls = 0;
    let unboundedRestarts = 0;
    const wider = fc.record({
      ...recallNotesArbitraries({
        notes: { minLength: 6, maxLength: 12 },
        turns: { minLength: 3, maxLength: 7 },
        maxExchanges: 3,
      }),
      share: fc.constantFrom(0.25, 0.5),
    });
    fc.assert(
      fc.property(wider, fc.double({ min: 0.3, max: 1, noNaN: true }), (input, fraction) => {
        const bounded = restartsBesideKept(input, 1.25, fraction);
        expect(bounded.restarted).toBe(0);
        keptCalls += bounded.kept;
        unboundedRestarts += restartsBesideKept(input, 0, fraction).restarted;
      }),
      { numRuns: 60 },
    );
    // Not vacuous: blocks were kept, and without the bound epochs beside them restarted.
    expect(keptCalls).toBeGreaterThan(0);
    expect(unboundedRestarts).toBeGreaterThan(0);
  });

  it('under tight budgets every request is valid and within its ceiling', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 600, max: 6_000 }), (input, maxInputTokens) => {
        for (const call of renderCalls(input, 1, maxInputTokens))
          if (call !== null) expect(call.total).toBeLessThanOrEqual(call.ceiling);
      }),
      { numRuns: 40 },
    );
  });
});
