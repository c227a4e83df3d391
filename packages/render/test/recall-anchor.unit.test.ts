import { type Thread, tokenBudget } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { renderPromptSync } from '../src/index.js';
import { MIN_ANCHORED_ALLOWANCE, recallRooms } from '../src/recall/recall-anchor.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { ids, planOf, summarize } from './support/plans.js';
import { renderInput, wireMessages, withoutCacheControl } from './support/render-helpers.js';
import { PROVIDERS } from './support/tokenizers.js';

const MARKER = '[Recalled from earlier in this conversation';

/**
 * Compacted turns about lockers, then a turn whose request asks about them and whose agent works
 * through `exchanges` tool calls: the thread as it is before each of the agent's calls.
 */
function agentTurn(exchanges: number, placement: 'turn' | 'turn-halving' | 'end' = 'turn'): Thread {
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
  it('offers the room the turn began with and its half, beside the room left now', () => {
    const policy = agentTurn(0).policy.recall;
    const parts = { policy, reserveTokens: 100, rehydrationTokens: 0, freeRoom: 300 };
    expect(recallRooms({ ...parts, anchor: undefined }).anchored).toEqual([]);
    // The turn's first call: nothing after the anchor, the room now is all there is.
    expect(recallRooms({ ...parts, anchor: { slot: 3, tokensAfter: 0 } }).anchored).toEqual([]);
    const rooms = recallRooms({ ...parts, anchor: { slot: 3, tokensAfter: 700 } });
    expect(rooms.now).toEqual({ allowance: 300, reserveAllowance: 100, fillsRoom: true });
    expect(rooms.anchored).toEqual([{ allowance: 1000, reserveAllowance: 100, fillsRoom: true }]);
    const halving = recallRooms({ ...parts, anchor: { slot: 3, tokensAfter: 700 }, halve: true });
    expect(halving.anchored).toEqual([
      { allowance: 1000, reserveAllowance: 100, fillsRoom: true },
      { allowance: 500, reserveAllowance: 100, fillsRoom: true },
    ]);
    const small = recallRooms({
      ...parts,
      freeRoom: 10,
      anchor: { slot: 3, tokensAfter: 2 * MIN_ANCHORED_ALLOWANCE - 12 },
      halve: true,
    });
    expect(small.anchored.map((room) => room.allowance)).toEqual([2 * MIN_ANCHORED_ALLOWANCE - 2]);
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

  for (const placement of ['turn', 'turn-halving'] as const)
    it(`keeps the block of the turn while it fits${placement === 'turn-halving' ? ', then its half' : ''}, then goes back to the end; always within the ceiling (${placement})`, () => {
      const last = agentTurn(6, placement);
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
      const phases: string[] = [];
      const anchoredBlocks = new Set<string>();
      for (let exchanges = 0; exchanges <= 6; exchanges += 1) {
        const thread = agentTurn(exchanges, placement);
        const result = renderPromptSync(renderInput('anthropic', thread, compactedPlan(thread), { budget }));
        expect(result.tokens.total).toBeLessThanOrEqual(maxInputTokens);
        expect(validateProviderRequest('anthropic', result.request).errors).toEqual([]);
        const wire = wireMessages(result.request);
        const index = recallIndex(result.request);
        if (index < 0) phases.push('none');
        else if (index === wire.length - 1) phases.push('end');
        else {
          phases.push('anchored');
          anchoredBlocks.add(JSON.stringify(withoutCacheControl(wire[index])));
        }
      }
      expect(phases[0]).toBe('end');
      expect(phases.slice(1)).toContain('anchored');
      // Anchored, then (once it no longer fits) never anchored again in the turn.
      const lastAnchored = phases.lastIndexOf('anchored');
      expect(phases.slice(1, lastAnchored + 1).every((phase) => phase === 'anchored')).toBe(true);
      expect(anchoredBlocks.size).toBeLessThanOrEqual(placement === 'turn' ? 1 : 2);
      expect(phases.at(-1)).not.toBe('anchored');
    });
});
