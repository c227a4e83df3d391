import { type Thread, tokenBudget } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { renderPromptSync } from '../src/index.js';
import { anchoredAllowance, MIN_ANCHORED_ALLOWANCE } from '../src/recall/recall-anchor.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { ids, planOf, summarize } from './support/plans.js';
import { renderInput, wireMessages, withoutCacheControl } from './support/render-helpers.js';
import { PROVIDERS } from './support/tokenizers.js';

const MARKER = '[Recalled from earlier in this conversation';

/**
 * Compacted turns about lockers, then a turn whose request asks about them and whose agent works
 * through `exchanges` tool calls: the thread as it is before each of the agent's calls.
 */
function agentTurn(exchanges: number, placement: 'turn' | 'end' = 'turn'): Thread {
  const builder = threadBuilder('anchor', { tenantId: 'tenant-1' });
  for (let index = 0; index < 6; index += 1)
    builder.user(`Locker note ${index}: locker ${index} has code ${4000 + index}.`).assistant('Noted.');
  builder.user('Which locker codes did I give you? Check the inventory file too.');
  for (let call = 0; call < exchanges; call += 1) {
    builder.assistant(`Reading part ${call}.`, {
      toolCalls: [{ id: `c${call}`, name: 'read_file', input: { path: `inventory-${call}.txt` } }],
    });
    builder.toolResult(`c${call}`, `inventory part ${call}: ${'shelf '.repeat(40)}`);
  }
  const { thread } = builder.build();
  return { ...thread, policy: { ...thread.policy, recall: { ...thread.policy.recall, placement } } };
}

const compactedPlan = (thread: Thread) =>
  planOf(thread, [summarize(thread, ids(1, 12), { facts: [{ text: 'locker notes' }] })]);

function recallIndex(request: unknown): number {
  return wireMessages(request).findIndex((message) => JSON.stringify(message).includes(MARKER));
}

describe('recall anchored at the newest turn (ADR-0210)', () => {
  it('halves the allowance the turn began with until it fits, then gives up', () => {
    expect(anchoredAllowance(1000, 5000)).toBe(1000);
    expect(anchoredAllowance(1000, 1000)).toBe(1000);
    expect(anchoredAllowance(1000, 999)).toBe(500);
    expect(anchoredAllowance(1000, 499)).toBe(0);
    expect(anchoredAllowance(2 * MIN_ANCHORED_ALLOWANCE - 2, MIN_ANCHORED_ALLOWANCE)).toBe(0);
  });

  for (const provider of PROVIDERS) {
    it(`keeps the block in place and byte-identical over the turn's calls (${provider})`, () => {
      const requests = [0, 1, 2, 3].map((exchanges) => {
        const thread = agentTurn(exchanges);
        const result = renderPromptSync(renderInput(provider, thread, compactedPlan(thread)));
        expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
        expect(result.tokens.recall).toBeGreaterThan(0);
        return result;
      });
      const anchor = recallIndex(requests[0]!.request);
      // The turn's first call: the block is last, as without the anchor.
      expect(anchor).toBe(wireMessages(requests[0]!.request).length - 1);
      for (const later of requests.slice(1)) {
        const wire = withoutCacheControl(wireMessages(later.request)) as unknown[];
        const first = withoutCacheControl(wireMessages(requests[0]!.request)) as unknown[];
        expect(recallIndex(later.request)).toBe(anchor);
        // Everything through the block is what the first call sent: the prefix a cache serves.
        expect(wire.slice(0, anchor + 1)).toEqual(first.slice(0, anchor + 1));
        expect(later.tokens.recall).toBe(requests[0]!.tokens.recall);
      }
    });
  }

  it('the end placement rewrites the block after the newest message on every call', () => {
    const thread = agentTurn(2, 'end');
    const result = renderPromptSync(renderInput('anthropic', thread, compactedPlan(thread)));
    expect(recallIndex(result.request)).toBe(wireMessages(result.request).length - 1);
  });

  it('shrinks the block by halves as the turn fills the room, and stays within the ceiling', () => {
    const last = agentTurn(6);
    const withoutRecall = renderPromptSync(
      renderInput('anthropic', last, compactedPlan(last), {
        budget: tokenBudget({ maxInputTokens: 10_000_000 }),
        recall: false,
      }),
    );
    // The room at the turn's start is what the turn's six exchanges will take (and a little more).
    const maxInputTokens = withoutRecall.tokens.total + 20;
    const budget = tokenBudget({
      maxInputTokens,
      outputReserveTokens: 0,
      safetyBufferTokens: 0,
      rehydrationReserveTokens: 0,
    });
    const allowances: number[] = [];
    for (let exchanges = 0; exchanges <= 6; exchanges += 1) {
      const thread = agentTurn(exchanges);
      const result = renderPromptSync(renderInput('anthropic', thread, compactedPlan(thread), { budget }));
      expect(result.tokens.total).toBeLessThanOrEqual(maxInputTokens);
      expect(validateProviderRequest('anthropic', result.request).errors).toEqual([]);
      allowances.push(result.report.recall.allowance);
    }
    // Monotone, and at most three sizes over the turn: the first allowance, its half, none.
    for (let index = 1; index < allowances.length; index += 1)
      expect(allowances[index]).toBeLessThanOrEqual(allowances[index - 1]!);
    expect(new Set(allowances).size).toBeLessThanOrEqual(3);
    expect(allowances[0]).toBeGreaterThan(0);
    expect(allowances[1]).toBe(Math.floor(allowances[0]! / 2));
    expect(allowances.at(-1)).toBe(0);
  });
});
