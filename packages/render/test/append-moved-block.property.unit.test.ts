import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderCache, type RenderCache } from '../src/index.js';
import {
  expectWarmRendersAsFresh,
  RECALL_MARKER,
  recallNotesArbitraries,
  recallNotesThread,
  renderChecked,
  type TightCalls,
  tightCalls,
  withAppendRecall,
} from './support/recall-notes-thread.js';
import { wireMessages, withoutCacheControl } from './support/render-helpers.js';

/**
 * ADR-0390: compacted notes, then agent turns long enough (many tool calls) that the newest turn's own
 * recall block stops fitting beside its growing messages under a tight ceiling.
 */
const scenario = fc.record({
  ...recallNotesArbitraries({
    notes: { minLength: 16, maxLength: 40 },
    turns: { minLength: 1, maxLength: 3 },
    maxExchanges: 14,
  }),
  turnShare: fc.constantFrom(0.125, 0.25, 0.5),
  movedShare: fc.constantFrom(0.25, 0.5, 0.75),
  fraction: fc.double({ min: 0.6, max: 1, noNaN: true }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function calls(input: Scenario, movedShare: number): TightCalls {
  const { thread: built, compacted } = recallNotesThread('moved', input.notes, input.turns, 6);
  const thread = withAppendRecall(built, { appendTurnShare: input.turnShare, appendMovedShare: movedShare });
  return tightCalls(thread, compacted, input.provider, input.fraction);
}

interface Replay {
  /** Calls whose request does not begin with the whole previous request (the cache breaks inside it). */
  rewrites: number;
  /** Calls that sent a recall block neither right after a turn's opening nor as the last message. */
  movedBlocks: number;
}

/** Every call of the live turns with one cache, as an agent runtime renders them; checks each request. */
function replay(input: Scenario, movedShare: number, cache: RenderCache = createRenderCache()): Replay {
  const { prefixes, plan, ceiling } = calls(input, movedShare);
  let previous: unknown[] | undefined;
  let rewrites = 0;
  let movedBlocks = 0;
  for (const thread of prefixes) {
    const result = renderChecked(thread, plan, input.provider, ceiling, cache);
    if (result === undefined) {
      previous = undefined;
      continue;
    }
    const wire = withoutCacheControl(wireMessages(result.request)) as unknown[];
    if (result.report.emergencyFit) {
      previous = undefined;
      continue;
    }
    if (previous && JSON.stringify(wire.slice(0, previous.length)) !== JSON.stringify(previous))
      rewrites += 1;
    previous = wire;
    const texts = wire.map((message) => JSON.stringify(message));
    const opens = (text: string) => /Question \d+:/.test(text);
    for (const [index, text] of texts.entries())
      if (index < texts.length - 1 && text.includes(RECALL_MARKER) && !opens(texts[index - 1]!))
        movedBlocks += 1;
  }
  return { rewrites, movedBlocks };
}

describe('the newest turn’s block, once it no longer fits, stays where it was first sent (ADR-0390)', () => {
  it('valid, within the ceiling, honestly counted; never more cache breaks than the block at the end, and fewer over the runs', {
    timeout: 120_000,
  }, () => {
    let atEnd = 0;
    let moved = 0;
    let movedBlocks = 0;
    fc.assert(
      fc.property(scenario, (input) => {
        const kept = replay(input, input.movedShare);
        const rewritten = replay(input, 0);
        // Share 0 is ADR-0276's block at the end: no block stands anywhere else.
        expect(rewritten.movedBlocks).toBe(0);
        expect(kept.rewrites).toBeLessThanOrEqual(rewritten.rewrites);
        atEnd += rewritten.rewrites;
        moved += kept.rewrites;
        movedBlocks += kept.movedBlocks;
      }),
      { numRuns: 60 },
    );
    // Not vacuous: blocks were kept in place and calls that rewrote an end block did not.
    expect(movedBlocks).toBeGreaterThan(0);
    expect(moved).toBeLessThan(atEnd);
  });

  it('a cache kept across the calls renders every call exactly as a fresh one (a pure function of the thread)', {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const { prefixes, plan, ceiling } = calls(input, input.movedShare);
        expectWarmRendersAsFresh(prefixes, plan, input.provider, ceiling);
      }),
      { numRuns: 30 },
    );
  });
});
