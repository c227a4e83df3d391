import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderCache, type RenderCache } from '../src/index.js';
import {
  expectWarmRendersAsFresh,
  recallNotesArbitraries,
  recallNotesThread,
  renderChecked,
  type TightCalls,
  tightCalls,
  withAppendRecall,
} from './support/recall-notes-thread.js';

/**
 * ADR-0435: compacted notes, then many agent turns under a ceiling tight enough that the blocks of a
 * plan version run out of room and a new epoch starts (ADR-0276's reset).
 */
const scenario = fc.record({
  ...recallNotesArbitraries({
    notes: { minLength: 16, maxLength: 40 },
    turns: { minLength: 4, maxLength: 10 },
    maxExchanges: 4,
  }),
  turnShare: fc.constantFrom(0.125, 0.25, 0.5),
  bound: fc.constantFrom(0.5, 1.25, 3),
  fraction: fc.double({ min: 0.5, max: 1, noNaN: true }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function calls(input: Scenario, bound: number): TightCalls {
  const { thread: built, compacted } = recallNotesThread('restart', input.notes, input.turns);
  const thread = withAppendRecall(built, {
    appendTurnShare: input.turnShare,
    appendRestartWithinHighWater: bound,
  });
  return tightCalls(thread, compacted, input.provider, input.fraction);
}

/** Every call with one cache, as an agent runtime renders them; checks each request. */
function restartedTurns(input: Scenario, bound: number, cache: RenderCache = createRenderCache()): number {
  const { prefixes, plan, ceiling } = calls(input, bound);
  const restarted = new Set<number>();
  for (const thread of prefixes) {
    const result = renderChecked(thread, plan, input.provider, ceiling, cache);
    if (result?.report.recall.epochRestarted) restarted.add(thread.messages.at(-1)!.turn);
  }
  return restarted.size;
}

describe('an epoch a restart began stays within the high-water room until the commit (ADR-0435)', () => {
  it('valid, within the ceiling, honestly counted; at most one restart per plan version, where the unbounded blocks restart more', {
    timeout: 120_000,
  }, () => {
    let bounded = 0;
    let unbounded = 0;
    let restartedAgain = 0;
    fc.assert(
      fc.property(scenario, (input) => {
        const once = restartedTurns(input, input.bound);
        const every = restartedTurns(input, 0);
        expect(once).toBeLessThanOrEqual(1);
        // The first restart happens where it did without the bound: the first epoch is unbounded.
        expect(once).toBe(Math.min(1, every));
        bounded += once;
        unbounded += every;
        if (every > 1) restartedAgain += 1;
      }),
      { numRuns: 60 },
    );
    // Not vacuous: epochs restarted, and without the bound some plan versions restarted again.
    expect(bounded).toBeGreaterThan(0);
    expect(restartedAgain).toBeGreaterThan(0);
    expect(bounded).toBeLessThan(unbounded);
  });

  it('a cache kept across the calls renders every call exactly as a fresh one (a pure function of the thread)', {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const { prefixes, plan, ceiling } = calls(input, input.bound);
        expectWarmRendersAsFresh(prefixes, plan, input.provider, ceiling);
      }),
      { numRuns: 30 },
    );
  });
});
