/**
 * OpenAI's own encrypted items (ADR-0250): reasoning and compaction items with `encrypted_content`
 * mixed into a Responses input come back from convert → render verbatim and in place, for random
 * conversations; the other formats leave them out.
 */
import { foldThread, type StoredEvent, tokenBudget } from '@compactor/core';
import { type OpenAIResponsesItem, renderPromptSync } from '@compactor/render';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { rethread } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { responsesItemsToMessages } from '../src/index.js';

const tokenizer = createTokenizer({ model: 'gpt-4o' });
const budget = tokenBudget({ maxInputTokens: 10_000_000 });

function render<P extends 'openai-responses' | 'openai-chat'>(log: StoredEvent[], provider: P) {
  return renderPromptSync({
    thread: foldThread(log),
    plan: null,
    system: 'You are a careful agent.',
    tools: [],
    budget,
    provider,
    tokenizer,
  });
}

const encryptedItem = fc.oneof(
  fc.record({
    type: fc.constant('reasoning' as const),
    id: fc.stringMatching(/^rs_[a-z0-9]{4,10}$/),
    summary: fc.array(
      fc.record({ type: fc.constant('summary_text' as const), text: fc.string({ minLength: 1 }) }),
      { maxLength: 2 },
    ),
    encrypted_content: fc.base64String({ minLength: 4, maxLength: 200 }).map((text) => `enc:${text}:enc`),
  }),
  fc.record({
    type: fc.constant('compaction' as const),
    id: fc.stringMatching(/^cmp_[a-z0-9]{4,10}$/),
    encrypted_content: fc.base64String({ minLength: 4, maxLength: 200 }).map((text) => `enc:${text}:enc`),
  }),
);

describe('OpenAI encrypted items round trip (ADR-0250)', () => {
  it('convert → render resends each reasoning and compaction item verbatim, in place', () => {
    fc.assert(
      fc.property(
        arbitraryThread({ maxTurns: 4, subagentMessages: false }),
        fc.array(fc.tuple(fc.nat(), encryptedItem), { minLength: 1, maxLength: 4 }),
        ({ events }, insertions) => {
          const base = render(events, 'openai-responses').request.input;
          // Anywhere but between two outputs (results travel right after their calls' message).
          const mixed: OpenAIResponsesItem[] = [...base];
          for (const [at, item] of insertions) {
            const slots = mixed.flatMap((entry, index) =>
              entry.type === 'function_call_output' ? [] : [index],
            );
            mixed.splice(slots.length === 0 ? mixed.length : slots[at % slots.length]!, 0, item);
          }
          const converted = responsesItemsToMessages(mixed);
          const again = render(rethread(events, converted), 'openai-responses');
          expect(JSON.stringify(again.request.input)).toBe(JSON.stringify(mixed));
          expect(again.report.opaque.sent).toBe(insertions.length);
          // Chat Completions cannot take them: left out, and said so.
          const chat = render(rethread(events, converted), 'openai-chat');
          for (const [, item] of insertions)
            expect(JSON.stringify(chat.request)).not.toContain(item.encrypted_content);
          expect(chat.report.opaque.omitted).toBe(insertions.length);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('leaves out reasoning items without encrypted content, as before', () => {
    const messages = responsesItemsToMessages([
      { role: 'user', content: 'Hi' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'ZW5j' },
    ]);
    expect(messages.map((message) => message.content)).toEqual([
      [{ type: 'text', text: 'Hi' }],
      [
        {
          type: 'opaque',
          provider: 'openai-responses',
          payload: { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'ZW5j' },
        },
      ],
    ]);
  });
});
