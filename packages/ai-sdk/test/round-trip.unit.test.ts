/**
 * Convert → render → convert loses nothing the AI SDK accepts: a rendered `ModelMessage[]`
 * converted back to messages and rendered again is the same request, for random threads; the
 * model-level prompt made from it converts back to the same messages too.
 */
import { foldThread, type StoredEvent, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { rethread } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelMessagesToMessages, promptToMessages, requestToPrompt } from '../src/index.js';

const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
const budget = tokenBudget({ maxInputTokens: 10_000_000 });

const render = (log: StoredEvent[]) =>
  renderPromptSync({
    thread: foldThread(log),
    plan: null,
    system: 'system',
    tools: [],
    budget,
    provider: 'ai-sdk',
    tokenizer,
  }).request;

describe('AI SDK messages round trip', () => {
  it('render → convert → render gives the same request, from ModelMessage[] and from the model-level prompt', () => {
    fc.assert(
      fc.property(arbitraryThread({ maxTurns: 4, subagentMessages: false }), ({ events }) => {
        const first = render(events);
        const fromModelMessages = modelMessagesToMessages(first.messages);
        expect(render(rethread(events, fromModelMessages)).messages).toEqual(first.messages);
        const fromPrompt = promptToMessages(requestToPrompt(first));
        expect(fromPrompt.system).toBe('system');
        expect(render(rethread(events, fromPrompt.messages)).messages).toEqual(first.messages);
      }),
      { numRuns: 80 },
    );
  }, 60_000);
});
