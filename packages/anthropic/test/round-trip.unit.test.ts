/**
 * Convert → render → convert loses nothing Anthropic accepts: a rendered request converted back
 * to messages and rendered again is the same request, for random threads (tool calls, batched
 * results, reasoning, images, subagents, system notes).
 */
import { foldThread, type StoredEvent, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { rethread } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageParamsToMessages } from '../src/index.js';

const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
const budget = tokenBudget({ maxInputTokens: 10_000_000 });

describe('Anthropic messages round trip', () => {
  it('render → convert → render gives the same request', () => {
    fc.assert(
      fc.property(arbitraryThread({ maxTurns: 4, subagentMessages: false }), ({ events }) => {
        const render = (log: StoredEvent[]) =>
          renderPromptSync({
            thread: foldThread(log),
            plan: null,
            system: 'system',
            tools: [],
            budget,
            provider: 'anthropic',
            tokenizer,
            promptCaching: false,
          }).request;
        const first = render(events);
        const converted = messageParamsToMessages(first.messages);
        const second = render(rethread(events, converted));
        expect(second.messages).toEqual(first.messages);
        // Stable ids: converting the same request twice names every message the same.
        expect(messageParamsToMessages(first.messages).map((message) => message.id)).toEqual(
          converted.map((message) => message.id),
        );
      }),
      { numRuns: 80 },
    );
  }, 60_000);
});
