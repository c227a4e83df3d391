import { foldThread, type ProviderName, type Thread, tokenBudget } from '@compactor/core';
import { arbitraryCompactionPlan, arbitraryThread } from '@compactor/testkit/arbitraries';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RenderBudgetExceededError, type RenderResult, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { renderInput, wireMessages } from './support/render-helpers.js';
import { PROVIDERS } from './support/tokenizers.js';

/**
 * A stale plan (made on a prefix of the thread) and the thread growing one event at a time past it,
 * rendered at a fixed ceiling from roomy to far too small: what an agent runtime sends call by call
 * while the worker has not compacted yet (ADR-0142).
 */
const scenario = arbitraryThread({ maxTurns: 6 }).chain(({ events }) =>
  fc.integer({ min: 1, max: Math.max(1, events.length - 2) }).chain((cut) =>
    fc.record({
      events: fc.constant(events),
      cut: fc.constant(cut),
      plan: fc.option(arbitraryCompactionPlan(foldThread(events.slice(0, cut)), { maxRecords: 6 }), {
        nil: null,
        freq: 4,
      }),
      provider: fc.constantFrom<ProviderName>(...PROVIDERS),
      keepRecentTurns: fc.integer({ min: 0, max: 2 }),
      keepRecentTokens: fc.constantFrom(0, 200),
      fraction: fc.double({ min: 0.3, max: 1.1, noNaN: true }),
    }),
  ),
);

function configured(thread: Thread, keepRecentTurns: number, keepRecentTokens: number): Thread {
  return {
    ...thread,
    // Recall adds an ephemeral block after everything: left out so the comparison is of the conversation.
    policy: {
      ...thread.policy,
      keepRecentTurns,
      keepRecentTokens,
      recall: { ...thread.policy.recall, enabled: false },
    },
  };
}

function cutOf(result: RenderResult): { dropped: Set<string>; cleared: Set<string> } {
  const fit = result.report.emergencyFit;
  return {
    dropped: new Set(fit?.dropped.map((drop) => drop.messageId) ?? []),
    cleared: new Set(fit?.clearedResults.map((cleared) => cleared.messageId) ?? []),
  };
}

describe('emergency fits are monotone and chunky (fast-check)', () => {
  it('appending an event never undoes a cut, and never changes the kept bytes while the cut holds', {
    timeout: 120_000,
  }, () => {
    let compared = 0;
    let heldWithFit = 0;
    let moved = 0;
    fc.assert(
      fc.property(
        scenario,
        ({ events, cut, plan, provider, keepRecentTurns, keepRecentTokens, fraction }) => {
          const full = configured(foldThread(events), keepRecentTurns, keepRecentTokens);
          const roomy = renderPromptSync(
            renderInput(provider, full, plan, { budget: tokenBudget({ maxInputTokens: 10_000_000 }) }),
          );
          const maxInputTokens = Math.max(1, Math.floor(roomy.tokens.total * fraction));
          const budget = tokenBudget({
            maxInputTokens,
            outputReserveTokens: 0,
            safetyBufferTokens: 0,
            rehydrationReserveTokens: 0,
          });
          const render = (end: number): RenderResult | null => {
            const thread = configured(foldThread(events.slice(0, end)), keepRecentTurns, keepRecentTokens);
            try {
              const result = renderPromptSync(
                renderInput(provider, thread, plan, { budget, promptCaching: false }),
              );
              expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
              expect(result.tokens.total).toBeLessThanOrEqual(maxInputTokens);
              return result;
            } catch (error) {
              expect(error).toBeInstanceOf(RenderBudgetExceededError);
              return null;
            }
          };
          // The calls an agent makes: the thread as it is before each assistant message (and at the
          // end); between two calls the harness appends the previous reply's results and the next turn.
          const calls: number[] = [];
          for (let end = cut; end <= events.length; end += 1) {
            const upcoming = events[end];
            if (
              end === events.length ||
              (upcoming?.type === 'message.appended' && upcoming.message.role === 'assistant')
            )
              calls.push(end);
          }
          let previous = render(calls[0]!);
          for (const end of calls.slice(1)) {
            const next = render(end);
            const before = previous;
            previous = next;
            if (!before || !next) continue;
            const fits = [before.report.emergencyFit, next.report.emergencyFit];
            // The grid's promise holds on the grid (past it, everything outside the tail is up for grabs),
            // and not when the newest exchange itself had to be cut.
            if (fits.some((fit) => fit && (fit.step === null || fit.truncatedResults.length > 0))) continue;
            compared += 1;
            const was = cutOf(before);
            const now = cutOf(next);
            const nowGone = new Set([
              ...now.dropped,
              ...(next.report.emergencyFit?.dropped.flatMap((drop) => drop.resultMessageIds) ?? []),
            ]);
            // Never undone: what was dropped stays dropped; what was cleared stays cleared (or went).
            for (const id of was.dropped) expect(now.dropped.has(id)).toBe(true);
            for (const id of was.cleared) expect(now.cleared.has(id) || nowGone.has(id)).toBe(true);
            const held =
              now.dropped.size === was.dropped.size &&
              now.cleared.size === was.cleared.size &&
              (fits[1]?.step ?? 0) === (fits[0]?.step ?? 0);
            if (!held) {
              // The cut moved only because the longer thread was over the ceiling.
              expect(fits[1]).not.toBeNull();
              moved += 1;
              continue;
            }
            if (fits[0]) heldWithFit += 1;
            // Same cut: the request before is a prefix of the request after, byte for byte, but for its
            // last wire message (the newest event may be merged into it).
            const a = wireMessages(before.request).map((message) => JSON.stringify(message));
            const b = wireMessages(next.request).map((message) => JSON.stringify(message));
            expect(b.slice(0, Math.max(0, a.length - 1))).toEqual(a.slice(0, Math.max(0, a.length - 1)));
          }
        },
      ),
      { numRuns: 150 },
    );
    // The generator must reach both outcomes: a cut held across appends, and a cut that moved.
    expect(compared).toBeGreaterThan(60);
    expect(heldWithFit).toBeGreaterThan(0);
    expect(moved).toBeGreaterThan(0);
  });
});
