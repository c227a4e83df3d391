/**
 * Anthropic's server-side `compaction` block (ADR-0250): mixed into a conversation as the beta API
 * returns it, it comes back from convert → render verbatim, opening the request in place of the
 * messages it stands for, for random conversations; other formats leave it out.
 */
import type { Anthropic } from '@anthropic-ai/sdk';
import { foldThread, type StoredEvent, tokenBudget } from '@compactor/core';
import { anthropicBetaRequest, renderPromptSync } from '@compactor/render';
import { validateProviderRequest } from '@compactor/render/validate';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { rethread } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageParamsToMessages } from '../src/index.js';

type BetaMessageParam = Anthropic.Beta.Messages.BetaMessageParam;

const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
const budget = tokenBudget({ maxInputTokens: 10_000_000 });

function render<P extends 'anthropic' | 'openai-chat'>(log: StoredEvent[], provider: P) {
  return renderPromptSync({
    thread: foldThread(log),
    plan: null,
    system: 'system',
    tools: [],
    budget,
    provider,
    tokenizer,
    promptCaching: false,
  });
}

const compactionBlock = fc.record({
  type: fc.constant('compaction' as const),
  content: fc.string({ minLength: 1, maxLength: 200 }).filter((text) => text.trim() !== ''),
  encrypted_content: fc.base64String({ minLength: 4, maxLength: 200 }),
  signature: fc.base64String({ minLength: 4, maxLength: 100 }).map((text) => `sig:${text}:sig`),
  tool_changes: fc.constant([] as Anthropic.Beta.Messages.BetaRequestToolAdditionBlock[]),
});

describe('Anthropic compaction blocks round trip (ADR-0250)', () => {
  it('convert → render opens the request with the block, verbatim, and the conversation after it unchanged', () => {
    fc.assert(
      fc.property(
        arbitraryThread({ threadId: 'before', maxTurns: 3, subagentMessages: false }),
        arbitraryThread({ threadId: 'after', maxTurns: 3, subagentMessages: false }),
        compactionBlock,
        ({ events: before }, { events: after }, block) => {
          // What the server compacted, its block (an assistant message alone), then the conversation since.
          const summarized: BetaMessageParam[] = render(before, 'anthropic').request.messages;
          const since = render(after, 'anthropic').request;
          const mixed: BetaMessageParam[] = [
            ...summarized,
            { role: 'assistant', content: [block] },
            ...since.messages,
          ];
          const converted = messageParamsToMessages(mixed);
          const again = render(rethread(after, converted), 'anthropic');
          const messages = again.request.messages;
          expect(JSON.stringify(messages[0])).toBe(JSON.stringify({ role: 'assistant', content: [block] }));
          expect(messages.slice(1)).toEqual(since.messages);
          expect(again.report.opaque).toEqual({
            sent: 1,
            omitted: 0,
            beforeServerCompaction: messageParamsToMessages(summarized).length,
          });
          expect(validateProviderRequest('anthropic', again.request).errors).toEqual([]);
          expect(anthropicBetaRequest(again.request)).toBe(again.request);
          // Another provider's format leaves the block out and keeps our own history.
          const chat = render(rethread(after, converted), 'openai-chat');
          expect(JSON.stringify(chat.request)).not.toContain(block.signature);
          expect(chat.report.opaque.omitted).toBe(1);
        },
      ),
      { numRuns: 50 },
    );
  }, 120_000);
});
