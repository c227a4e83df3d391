import type { CompactionPlan, Thread } from '@compactor/core';
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
  share: fc.constantFrom(0.125, 0.25, 0.5),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function calls(
  { notes, turns, share }: Scenario,
  keepBasisTurn: boolean,
): { prefixes: Thread[]; plan: CompactionPlan } {
  const { thread: built, compacted } = recallNotesThread('basis', notes, turns, 1);
  // ADR-0465's kept basis block off: this measures ADR-0360's rule against the block going.
  const thread = withAppendRecall(built, {
    appendTurnShare: share,
    appendKeepsBasisTurn: keepBasisTurn,
    appendBasisWithinHighWater: 0,
  });
  // Basis: the first tool result of the first live turn (its opening, call and result are live).
  const basis = compacted + 2;
  const plan = notesSummaryPlan(thread, compacted, basis);
  return { prefixes: callPrefixes(thread, basis + 1), plan };
}

/** Recall blocks inside the conversation (not the last wire message), keyed by the wire message before each. */
function insideBlocks(request: unknown): Map<string, string> {
  const wire = withoutCacheControl(wireMessages(request)) as unknown[];
  const blocks = new Map<string, string>();
  for (const [index, message] of wire.entries()) {
    const text = JSON.stringify(message);
    if (index > 0 && index < wire.length - 1 && text.includes(RECALL_MARKER))
      blocks.set(JSON.stringify(wire[index - 1]), text);
  }
  return blocks;
}

describe('the turn running at the plan basis keeps its block (ADR-0360)', () => {
  /** Calls whose request does not extend the previous one, over every call of the live turns (roomy budget). */
  function rewrites(input: Scenario, keepBasisTurn: boolean): number {
    const { prefixes, plan } = calls(input, keepBasisTurn);
    const cache = createRenderCache();
    let previous: unknown[] | undefined;
    let rewritten = 0;
    for (const thread of prefixes) {
      const result = renderWithin(thread, plan, input.provider, 1_000_000, cache);
      expect(validateProviderRequest(input.provider, result.request).errors).toEqual([]);
      const wire = withoutCacheControl(wireMessages(result.request)) as unknown[];
      if (previous && JSON.stringify(wire.slice(0, previous.length)) !== JSON.stringify(previous))
        rewritten += 1;
      previous = wire;
    }
    return rewritten;
  }

  it('every request extends the previous one when the next turn opens; without it the block goes', {
    timeout: 60_000,
  }, () => {
    let without = 0;
    fc.assert(
      fc.property(scenario, (input) => {
        expect(rewrites(input, true)).toBe(0);
        without += rewrites(input, false);
      }),
      { numRuns: 50 },
    );
    // Not vacuous: giving the basis turn a block only while it is the newest rewrote requests.
    expect(without).toBeGreaterThan(0);
  });
});

describe('what the engine reads of the append blocks (ADR-0361)', () => {
  it('a block sent on the previous call is sent again, byte for byte, unless the report says it was left out or a new epoch began', {
    timeout: 60_000,
  }, () => {
    let reported = 0;
    fc.assert(
      fc.property(scenario, fc.double({ min: 0.4, max: 1.1, noNaN: true }), (input, fraction) => {
        const { prefixes, plan } = calls(input, true);
        const roomy = renderWithin(prefixes.at(-1)!, plan, input.provider, 1_000_000, createRenderCache());
        const ceiling = Math.max(1, Math.floor(roomy.tokens.total * fraction));
        const cache = createRenderCache();
        let previous: Map<string, string> | undefined;
        for (const thread of prefixes) {
          let result: ReturnType<typeof renderWithin>;
          try {
            result = renderWithin(thread, plan, input.provider, ceiling, cache);
          } catch {
            previous = undefined;
            continue;
          }
          const blocks = insideBlocks(result.request);
          const { leftOutTokens, epochRestarted, leftOutFromTokens } = result.report.recall;
          if (leftOutTokens !== undefined) expect(leftOutTokens).toBeGreaterThan(0);
          // Where the first block that went sat (ADR-0430): inside the conversation sent, whenever a block went.
          if (leftOutTokens !== undefined) {
            expect(leftOutFromTokens).toBeGreaterThan(0);
            expect(leftOutFromTokens).toBeLessThanOrEqual(result.tokens.messages);
          }
          if (leftOutTokens === undefined && !epochRestarted) expect(leftOutFromTokens).toBeUndefined();
          if (leftOutTokens !== undefined || epochRestarted) reported += 1;
          if (previous && !result.report.emergencyFit && leftOutTokens === undefined && !epochRestarted)
            for (const [opening, block] of previous) expect(blocks.get(opening)).toBe(block);
          previous = result.report.emergencyFit ? undefined : blocks;
        }
      }),
      { numRuns: 60 },
    );
    // Not vacuous: tight budgets left blocks out.
    expect(reported).toBeGreaterThan(0);
  });
});
