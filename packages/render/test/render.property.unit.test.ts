import { foldThread, type ProviderName, type Thread, tokenBudget } from '@compactor/core';
import { arbitraryCompactionPlan, arbitraryThread } from '@compactor/testkit/arbitraries';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderCache, RenderBudgetExceededError, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { renderInput } from './support/render-helpers.js';
import { independentCount, PROVIDERS } from './support/tokenizers.js';

/**
 * Random threads (tool calls, batched results, subagents, system notes, reasoning, images, huge
 * outputs) with random plans (overlapping records of every kind) made on a random prefix of the
 * thread, so most plans are stale; random protected tails and budgets from far too small to roomy.
 */
const scenario = arbitraryThread({ maxTurns: 5 }).chain(({ events }) =>
  fc.integer({ min: 1, max: events.length }).chain((cut) => {
    const planned = foldThread(events.slice(0, cut));
    return fc.record({
      thread: fc.constant(foldThread(events)),
      plan: fc.option(arbitraryCompactionPlan(planned, { maxRecords: 6 }), { nil: null, freq: 5 }),
      provider: fc.constantFrom<ProviderName>(...PROVIDERS),
      keepRecentTurns: fc.integer({ min: 0, max: 3 }),
      keepRecentTokens: fc.constantFrom(0, 200, 2_000),
      // Recall after the newest message, anchored at the newest turn's opening (ADR-0210), or a block
      // at every turn's opening of the plan version (ADR-0276).
      placement: fc.constantFrom<Placement>('end', 'turn', 'turn-halving', 'append'),
      fraction: fc.oneof(
        { weight: 1, arbitrary: fc.double({ min: 0.05, max: 0.6, noNaN: true }) },
        { weight: 4, arbitrary: fc.double({ min: 0.6, max: 1.2, noNaN: true }) },
      ),
    });
  }),
);

type Placement = 'end' | 'turn' | 'turn-halving' | 'append';

function withTail(
  thread: Thread,
  keepRecentTurns: number,
  keepRecentTokens: number,
  placement: Placement = 'end',
): Thread {
  const recall = { ...thread.policy.recall, placement };
  return { ...thread, policy: { ...thread.policy, keepRecentTurns, keepRecentTokens, recall } };
}

describe('render properties (fast-check)', () => {
  it('is always valid, within budget, honestly counted and deterministic — or refuses with the numbers', {
    timeout: 60_000,
  }, () => {
    let rendered = 0;
    let refused = 0;
    let emergencies = 0;
    fc.assert(
      fc.property(
        scenario,
        ({ thread: base, plan, provider, keepRecentTurns, keepRecentTokens, placement, fraction }) => {
          const thread = withTail(base, keepRecentTurns, keepRecentTokens, placement);
          const roomy = renderPromptSync(
            renderInput(provider, thread, plan, { budget: tokenBudget({ maxInputTokens: 10_000_000 }) }),
          );
          const maxInputTokens = Math.max(1, Math.floor(roomy.tokens.total * fraction));
          const budget = tokenBudget({
            maxInputTokens,
            outputReserveTokens: 0,
            safetyBufferTokens: 0,
            rehydrationReserveTokens: 0,
          });
          let result: ReturnType<typeof renderPromptSync>;
          try {
            result = renderPromptSync(renderInput(provider, thread, plan, { budget }));
          } catch (error) {
            expect(error).toBeInstanceOf(RenderBudgetExceededError);
            const numbers = (error as RenderBudgetExceededError).numbers;
            expect(numbers.ceiling).toBe(maxInputTokens);
            expect(
              numbers.system + numbers.tools + numbers.formatting + numbers.protectedTail,
            ).toBeGreaterThan(maxInputTokens);
            refused += 1;
            return;
          }
          rendered += 1;
          if (result.report.emergencyFit) emergencies += 1;
          expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
          expect(result.tokens.total).toBeLessThanOrEqual(maxInputTokens);
          expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
          expect(result.report.stale).toBe(
            plan !== null && (thread.messages.at(-1)?.seq ?? 0) > plan.basedOnSeq,
          );

          const cache = createRenderCache();
          const cold = JSON.stringify(
            renderPromptSync(renderInput(provider, thread, plan, { budget, cache })),
          );
          const warm = JSON.stringify(
            renderPromptSync(renderInput(provider, thread, plan, { budget, cache })),
          );
          expect(cold).toBe(JSON.stringify(result));
          expect(warm).toBe(cold);
        },
      ),
      { numRuns: 200 },
    );
    // The generator must actually reach every outcome.
    expect(rendered).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(0);
    expect(emergencies).toBeGreaterThan(0);
  });

  it('a fresh plan under a roomy budget never needs the emergency fit', () => {
    fc.assert(
      fc.property(
        arbitraryThread({ maxTurns: 4 }).chain(({ thread }) =>
          fc.record({
            thread: fc.constant(thread),
            plan: arbitraryCompactionPlan(thread),
            provider: fc.constantFrom<ProviderName>(...PROVIDERS),
          }),
        ),
        ({ thread, plan, provider }) => {
          const result = renderPromptSync(renderInput(provider, thread, plan));
          expect(result.report.emergencyFit).toBeNull();
          expect(result.report.stale).toBe(false);
          expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('render cache correctness (fast-check)', () => {
  it('rendering a growing thread with one cache gives exactly the cold render at every step', {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(
        arbitraryThread({ maxTurns: 4 }).chain(({ events }) =>
          fc.integer({ min: 1, max: events.length }).chain((cut) =>
            fc.record({
              events: fc.constant(events),
              plan: fc.option(arbitraryCompactionPlan(foldThread(events.slice(0, cut))), {
                nil: null,
                freq: 5,
              }),
              provider: fc.constantFrom<ProviderName>(...PROVIDERS),
              agent: fc.constantFrom<string | undefined>(undefined, undefined, 'thread-1-agent1'),
            }),
          ),
        ),
        ({ events, plan, provider, agent }) => {
          const cache = createRenderCache();
          const start = Math.max(1, events.length - 12);
          for (let end = start; end <= events.length; end += 1) {
            const thread = withTail(foldThread(events.slice(0, end)), 1, 0);
            const input = renderInput(provider, thread, plan, { agent });
            const warm = JSON.stringify(renderPromptSync({ ...input, cache }));
            const cold = JSON.stringify(renderPromptSync(input));
            expect(warm).toBe(cold);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
