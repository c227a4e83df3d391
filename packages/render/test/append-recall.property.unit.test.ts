import { type CompactionPlan, type Thread, threadKindOf } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderCache, type RenderCache } from '../src/index.js';
import { recallOnlyWhenAsked, recallPlacement } from '../src/recall/place-recall.js';
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
 * Compacted turns, each a note naming two words of the vocabulary, then live turns that ask about
 * some of them, some worked through with tool calls: every prefix an agent would call the model with.
 */
const scenario = fc.record({
  ...recallNotesArbitraries({
    notes: { minLength: 4, maxLength: 10 },
    turns: { minLength: 2, maxLength: 6 },
    maxExchanges: 2,
  }),
  share: fc.constantFrom(0.1, 0.25, 0.5, 1),
});

interface Calls {
  /** The thread before each call of the live turns. */
  prefixes: Thread[];
  plan: CompactionPlan;
}

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function calls({ notes, turns, share }: Scenario, withinHighWater = true): Calls {
  const { thread: built, compacted } = recallNotesThread('append', notes, turns);
  const thread = withAppendRecall(built, { appendTurnShare: share, appendWithinHighWater: withinHighWater });
  const plan = notesSummaryPlan(thread, compacted);
  return { prefixes: callPrefixes(thread, compacted + 1), plan };
}

/** Each recall block of a request, keyed by the wire message before it (its turn's opening). */
function blocksByOpening(request: unknown): Map<string, string> {
  const wire = withoutCacheControl(wireMessages(request)) as unknown[];
  const blocks = new Map<string, string>();
  for (const [index, message] of wire.entries()) {
    const text = JSON.stringify(message);
    if (index > 0 && text.includes(RECALL_MARKER)) blocks.set(JSON.stringify(wire[index - 1]), text);
  }
  return blocks;
}

describe('append-only recall (ADR-0276)', () => {
  it('never rewrites what an earlier call sent: each request extends the previous one (roomy budget)', {
    timeout: 60_000,
  }, () => {
    let multiBlock = 0;
    fc.assert(
      fc.property(scenario, (input) => {
        const { prefixes, plan } = calls(input);
        const cache = createRenderCache();
        let previous: unknown[] | undefined;
        for (const thread of prefixes) {
          const result = renderWithin(thread, plan, input.provider, 1_000_000, cache);
          expect(validateProviderRequest(input.provider, result.request).errors).toEqual([]);
          const wire = withoutCacheControl(wireMessages(result.request)) as unknown[];
          if (previous) expect(wire.slice(0, previous.length)).toEqual(previous);
          previous = wire;
          if (blocksByOpening(result.request).size >= 2) multiBlock += 1;
        }
      }),
      { numRuns: 60 },
    );
    // Not vacuous: requests carried the blocks of several turns.
    expect(multiBlock).toBeGreaterThan(0);
  });

  it('is valid, within the ceiling, honestly counted, ephemeral, and shows a message once; a block kept from one call to the next is the same bytes', {
    timeout: 60_000,
  }, () => {
    let kept = 0;
    // Calls with fewer blocks than the call before: an epoch reset or a block that no longer fits.
    let shrunk = 0;
    fc.assert(
      fc.property(scenario, fc.double({ min: 0.5, max: 1.1, noNaN: true }), (input, fraction) => {
        const { prefixes, plan } = calls(input);
        const roomy = renderWithin(prefixes.at(-1)!, plan, input.provider, 1_000_000, createRenderCache());
        const ceiling = Math.max(1, Math.floor(roomy.tokens.total * fraction));
        const cache = createRenderCache();
        let previous: Map<string, string> | undefined;
        for (const thread of prefixes) {
          const before = JSON.stringify(thread.messages);
          let result: ReturnType<typeof renderWithin>;
          try {
            result = renderWithin(thread, plan, input.provider, ceiling, cache);
          } catch {
            // Refusing (the protected tail alone over the ceiling) is the main property test's business.
            previous = undefined;
            continue;
          }
          expect(JSON.stringify(thread.messages)).toBe(before);
          expect(thread.messages.some((message) => JSON.stringify(message).includes(RECALL_MARKER))).toBe(
            false,
          );
          expect(validateProviderRequest(input.provider, result.request).errors).toEqual([]);
          expect(result.tokens.total).toBeLessThanOrEqual(ceiling);
          expect(result.tokens.recall).toBe(result.report.recall.tokens);
          const recalled = result.report.recall.recalled.map((hit) => hit.messageId);
          expect(new Set(recalled).size).toBe(recalled.length);
          const blocks = blocksByOpening(result.request);
          if (result.tokens.recall === 0) expect(blocks.size).toBe(0);
          if (previous && blocks.size < previous.size) shrunk += 1;
          if (previous && !result.report.emergencyFit) {
            for (const [opening, block] of blocks) {
              const earlier = previous.get(opening);
              if (earlier === undefined) continue;
              expect(block).toBe(earlier);
              kept += 1;
            }
          }
          previous = result.report.emergencyFit ? undefined : blocks;
        }
      }),
      { numRuns: 60 },
    );
    expect(kept).toBeGreaterThan(0);
    expect(shrunk).toBeGreaterThan(0);
  });
});

describe('remembered turns (ADR-0305)', () => {
  it('a cache kept across the calls renders every call exactly as a fresh one: every prefix, tight budgets too', {
    timeout: 60_000,
  }, () => {
    let blocks = 0;
    fc.assert(
      fc.property(scenario, fc.double({ min: 0.5, max: 1.1, noNaN: true }), (input, fraction) => {
        const { prefixes, plan } = calls(input);
        const last = prefixes.at(-1)!;
        const roomy = renderWithin(last, plan, input.provider, 1_000_000, createRenderCache());
        const ceiling = Math.max(1, Math.floor(roomy.tokens.total * fraction));
        // Every prefix after the plan, pending tool calls included (they get an end block).
        const compacted = last.messages.findIndex((message) => message.seq > plan.basedOnSeq);
        const warm = createRenderCache();
        for (let end = compacted + 1; end <= last.messages.length; end += 1) {
          const messages = last.messages.slice(0, end);
          const thread = { ...last, messages, version: messages.at(-1)!.seq };
          const outcome = (cache: RenderCache) => {
            try {
              const result = renderWithin(thread, plan, input.provider, ceiling, cache);
              return { request: result.request, recall: result.report.recall };
            } catch (error) {
              return { refused: String(error) };
            }
          };
          const fresh = outcome(createRenderCache());
          expect(outcome(warm)).toEqual(fresh);
          if ('request' in fresh) blocks += blocksByOpening(fresh.request).size;
        }
      }),
      { numRuns: 40 },
    );
    expect(blocks).toBeGreaterThan(0);
  });

  // ADR-0341: a search's memo key names what it excludes by the fold step whose blocks show it. Budgets
  // fold the same turns into different epochs and steps that share one plan index and search memo.
  it('one cache across budgets and prefixes renders every call exactly as a fresh one', {
    timeout: 60_000,
  }, () => {
    let differing = 0;
    fc.assert(
      fc.property(
        scenario,
        fc.uniqueArray(fc.double({ min: 0.4, max: 1.1, noNaN: true }), { minLength: 2, maxLength: 3 }),
        (input, fractions) => {
          const { prefixes, plan } = calls(input, false);
          const last = prefixes.at(-1)!;
          const roomy = renderWithin(last, plan, input.provider, 1_000_000, createRenderCache());
          const ceilings = fractions.map((fraction) =>
            Math.max(1, Math.floor(roomy.tokens.total * fraction)),
          );
          const compacted = last.messages.findIndex((message) => message.seq > plan.basedOnSeq);
          const warm = createRenderCache();
          for (let end = compacted + 1; end <= last.messages.length; end += 1) {
            const messages = last.messages.slice(0, end);
            const thread = { ...last, messages, version: messages.at(-1)!.seq };
            const outcomes = ceilings.map((ceiling) => {
              const outcome = (cache: RenderCache) => {
                try {
                  const result = renderWithin(thread, plan, input.provider, ceiling, cache);
                  return { request: result.request, recall: result.report.recall };
                } catch (error) {
                  return { refused: String(error) };
                }
              };
              const fresh = outcome(createRenderCache());
              expect(outcome(warm)).toEqual(fresh);
              return JSON.stringify(fresh);
            });
            if (new Set(outcomes).size > 1) differing += 1;
          }
        },
      ),
      { numRuns: 60 },
    );
    // Not vacuous: the budgets rendered different requests from one cache.
    expect(differing).toBeGreaterThan(0);
  });

  // ADR-0341, directed: turns that open with the same words search with the same query and, in one
  // epoch, the same room; only what they exclude (the earlier turns' hits) tells their searches apart.
  it('a turn asked again in the same words gets new hits, warm as fresh (the search memo tells exclusions apart)', () => {
    const builder = threadBuilder('repeat', { tenantId: 'tenant-1' });
    for (let index = 0; index < 12; index += 1)
      builder.user(`Note ${index}: the violin case is on shelf ${index}.`).assistant('Noted.');
    const compacted = 24;
    for (let turn = 0; turn < 4; turn += 1)
      builder.user('Where is the violin case?').assistant(`Answer ${turn}.`);
    const built = builder.build().thread;
    const thread = withAppendRecall(built, { appendTurnShare: 0.25, topK: 2, freeRoomTopK: 2 });
    const plan = notesSummaryPlan(thread, compacted);
    const warm = createRenderCache();
    let blocks = 0;
    for (let end = compacted + 1; end <= thread.messages.length; end += 1) {
      const messages = thread.messages.slice(0, end);
      const prefix = { ...thread, messages, version: messages.at(-1)!.seq };
      const result = renderWithin(prefix, plan, 'anthropic', 1_000_000, warm);
      const fresh = renderWithin(prefix, plan, 'anthropic', 1_000_000, createRenderCache());
      expect(result.request).toEqual(fresh.request);
      const recalled = result.report.recall.recalled.map((hit) => hit.messageId);
      expect(new Set(recalled).size).toBe(recalled.length);
      const wire = wireMessages(result.request) as unknown[];
      blocks = Math.max(
        blocks,
        wire.filter((message) => JSON.stringify(message).includes(RECALL_MARKER)).length,
      );
    }
    // Each of the four turns got a block of its own hits.
    expect(blocks).toBe(4);
  });

  it('a call asks recall for its new turn, not again for each earlier turn of the plan version', () => {
    const { prefixes, plan } = calls({
      notes: Array.from(
        { length: 10 },
        (_, index) => [index % 8, (index + 3) % 8, index] as [number, number, number],
      ),
      turns: Array.from({ length: 8 }, (_, turn) => ({ asks: [turn % 8, (turn + 5) % 8], exchanges: 0 })),
      provider: 'anthropic',
      share: 0.1,
    });
    const cache = createRenderCache();
    const asked: number[] = [];
    for (const thread of prefixes) {
      const before = cache.stats.recallSearches;
      const result = renderWithin(thread, plan, 'anthropic', 1_000_000, cache);
      const after = cache.stats.recallSearches;
      asked.push(after.run + after.remembered - before.run - before.remembered);
      expect(result.report.recall.tokens).toBeGreaterThan(0);
    }
    // Eight turns, each opened after the plan: the first call asks once, and so does every later one
    // (the earlier turns' blocks are remembered steps, not searches looked up again).
    expect(prefixes).toHaveLength(8);
    expect(asked).toEqual(Array.from({ length: 8 }, () => 1));
  });
});

describe('append blocks within the high-water mark (ADR-0335)', () => {
  /**
   * Every call of the live turns, in a window whose high-water mark holds the last call's messages:
   * the compaction trigger never fires. Returns how many calls lost a block the call before had.
   */
  function blocksPushedOut(input: Scenario, withinHighWater: boolean, slack: number): number {
    const { prefixes, plan } = calls(input, withinHighWater);
    const last = renderWithin(prefixes.at(-1)!, plan, input.provider, 1_000_000, createRenderCache());
    const overhead = last.tokens.system + last.tokens.tools + last.tokens.formatting + 200;
    const highWater = prefixes[0]!.policy.highWaterPercent;
    const window = Math.ceil(((last.tokens.messages + overhead) / highWater) * slack) + 1;
    const cache = createRenderCache();
    let previous: Map<string, string> | undefined;
    let pushedOut = 0;
    for (const thread of prefixes) {
      const result = renderWithin(thread, plan, input.provider, window, cache);
      expect(result.report.emergencyFit).toBeFalsy();
      expect(result.tokens.total).toBeLessThanOrEqual(window);
      const blocks = blocksByOpening(result.request);
      if (previous && [...previous].some(([opening, block]) => blocks.get(opening) !== block)) pushedOut += 1;
      previous = blocks;
    }
    return pushedOut;
  }

  it('keeps every block of the plan version, byte for byte, while the messages stay under the high-water mark', {
    timeout: 60_000,
  }, () => {
    let unbounded = 0;
    fc.assert(
      fc.property(scenario, fc.double({ min: 1, max: 1.3, noNaN: true }), (input, slack) => {
        expect(blocksPushedOut(input, true, slack)).toBe(0);
        unbounded += blocksPushedOut(input, false, slack);
      }),
      { numRuns: 60 },
    );
    // Not vacuous: sized by the room of the moment (ADR-0276), blocks were pushed out in the same runs.
    expect(unbounded).toBeGreaterThan(0);
  });
});

describe('the auto placement (ADR-0276)', () => {
  it('appends on a coding thread and anchors at the newest turn on a dialogue', () => {
    const dialogue = threadBuilder('dialogue', { tenantId: 'tenant-1' });
    for (let turn = 0; turn < 4; turn += 1)
      dialogue.user(`Hello ${turn}, how was the trip?`).assistant('Lovely.');
    expect(recallPlacement('auto', threadKindOf(dialogue.build().thread.messages))).toBe('turn');
    const coding = threadBuilder('coding', { tenantId: 'tenant-1' })
      .user('Fix the parser.')
      .assistant('Reading it.', { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.ts' } }] })
      .toolResult('c1', 'export const parse = () => 1;');
    expect(recallPlacement('auto', threadKindOf(coding.build().thread.messages))).toBe('append');
    for (const placement of ['turn', 'turn-halving', 'end', 'append'] as const)
      expect(recallPlacement(placement, threadKindOf(coding.build().thread.messages))).toBe(placement);
  });
});

describe('the auto gate (ADR-0320)', () => {
  it('waits for a question on a dialogue, and recalls on every turn of a coding thread or a one-sided one', () => {
    expect(recallOnlyWhenAsked('auto', 'dialogue')).toBe(true);
    expect(recallOnlyWhenAsked('auto', 'coding')).toBe(false);
    expect(recallOnlyWhenAsked('auto', 'other')).toBe(false);
    for (const kind of ['dialogue', 'coding', 'other'] as const) {
      expect(recallOnlyWhenAsked('question', kind)).toBe(true);
      expect(recallOnlyWhenAsked('always', kind)).toBe(false);
    }
  });
});
