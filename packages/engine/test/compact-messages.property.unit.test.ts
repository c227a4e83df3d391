import { approximateBytes, foldThread, type ProviderName, tokenBudget } from '@compactor/core';
import { createRenderCache, renderPromptSync } from '@compactor/render';
import { arbitraryCompactionPlan, arbitraryThread } from '@compactor/testkit/arbitraries';
import { tokenizerForThread } from '@compactor/tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactMessages, idsHiddenBy, isCompacted } from '../src/compact-messages.js';

/** Random threads (huge tool results included) with random plans made on a prefix, as the render properties draw them. */
const scenario = arbitraryThread({ maxTurns: 5 }).chain(({ events }) =>
  fc.integer({ min: 1, max: events.length }).chain((cut) =>
    fc.record({
      thread: fc.constant(foldThread(events)),
      plan: arbitraryCompactionPlan(foldThread(events.slice(0, cut)), { maxRecords: 6 }),
      provider: fc.constantFrom<ProviderName>('anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'),
    }),
  ),
);

describe('compact form of hidden messages (ADR-0285)', () => {
  it('is equal to the full thread: same values, same JSON text, same render', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(scenario, ({ thread, plan, provider }) => {
        const hidden = idsHiddenBy(plan);
        const result = compactMessages(thread.messages, hidden, approximateBytes);
        const compact = { ...thread, messages: result.messages };
        const expectedCompacted = thread.messages.filter((message) => hidden.has(message.id)).length;
        expect(result.compacted).toBe(expectedCompacted);
        result.messages.forEach((message, position) => {
          const full = thread.messages[position]!;
          if (hidden.has(full.id)) expect(isCompacted(message)).toBe(true);
          // A message the plan shows is the same object: nothing to read back.
          else expect(message).toBe(full);
          expect({ ...message }).toEqual(full);
        });
        expect(JSON.stringify(compact)).toBe(JSON.stringify(thread));
        expect(structuredClone(compact)).toEqual(thread);

        const render = (input: typeof thread) =>
          renderPromptSync({
            thread: input,
            plan,
            system: 'You are a coding agent.',
            tools: [],
            budget: tokenBudget({ maxInputTokens: 1_000_000 }),
            provider,
            tokenizer: tokenizerForThread(input),
            cache: createRenderCache(),
          });
        const fromFull = render(thread);
        const fromCompact = render(compact);
        expect(JSON.stringify(fromCompact.request)).toBe(JSON.stringify(fromFull.request));
        expect(fromCompact.tokens).toEqual(fromFull.tokens);
        expect(fromCompact.report).toEqual(fromFull.report);

        // Compacting again changes nothing: what is compact stays as it is.
        const again = compactMessages(result.messages, hidden, approximateBytes);
        expect(again.compacted).toBe(0);
        expect(again.messages).toBe(result.messages);
      }),
      { numRuns: 60 },
    );
  });

  it('holds less than the full form for a plan that hides most of a thread', () => {
    const thread = fc.sample(arbitraryThread({ minTurns: 6, maxTurns: 6, hugeToolResults: true }), {
      seed: 7,
      numRuns: 1,
    })[0]!;
    const folded = thread.thread;
    const hidden = new Set(folded.messages.slice(0, -2).map((message) => message.id));
    const result = compactMessages(folded.messages, hidden, approximateBytes);
    expect(result.compacted).toBe(folded.messages.length - 2);
    expect(result.bytesAfter).toBeLessThan(result.bytesBefore);
  });
});
