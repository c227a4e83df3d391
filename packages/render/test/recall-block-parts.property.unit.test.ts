import { type Message, type ProviderName, type Thread, type Tokenizer, tokenBudget } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createCountCache, createTokenizer, getEncoder, type TokenEncoder } from '@compactor/tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderCache, renderPromptSync } from '../src/index.js';
import { recallBlockParts, recallBlockText, recallHitParts } from '../src/synthetic-text.js';
import {
  callPrefixes,
  notesSummaryPlan,
  RECALL_VOCABULARY,
  withAppendRecall,
} from './support/recall-notes-thread.js';
import { renderInput } from './support/render-helpers.js';

/**
 * ADR-0460: the recall block is counted from its hits' parts. The parts join to the block's text
 * exactly, and a render counting that way sends and reports exactly what counting the block whole does.
 */

/** The block's text as it was written before it was made of parts: the reference. */
function blockTextAsLines(hits: readonly { text: string; turn: number | undefined }[]): string {
  const lines = hits.map((hit) => `(turn ${hit.turn ?? '?'}) ${hit.text}`);
  return `[Recalled from earlier in this conversation - compacted messages that match the latest message]\n(Ephemeral: shown for this turn only.)\n${lines.join('\n')}`;
}

const awkward = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc
    .array(fc.constantFrom('user:', 'word', ' ', '  ', '\n', '\r', '12', 'é', '数据', '🙂', '/', '.'), {
      maxLength: 60,
    })
    .map((pieces) => pieces.join('')),
);

describe('the recall block in parts (ADR-0460)', () => {
  it('joins to the block text, whatever the hits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: awkward, turn: fc.option(fc.nat(99_999), { nil: undefined }) }), {
          maxLength: 8,
        }),
        (hits) => {
          expect(recallBlockParts(hits).join('')).toBe(blockTextAsLines(hits));
          expect(recallBlockText(hits)).toBe(blockTextAsLines(hits));
          for (const hit of hits) expect(recallHitParts(hit.text).join('')).toBe(hit.text);
        },
      ),
      { numRuns: 300 },
    );
  });

  /** Notes long enough that their middles are memoized, with awkward spacing, digits and unicode. */
  function longNotesThread(notes: readonly (readonly [number, number, number])[], asks: readonly number[][]) {
    const builder = threadBuilder('parts', { tenantId: 'tenant-1' });
    for (const [index, [first, second, code]] of notes.entries()) {
      builder
        .user(
          `Note ${index}: the ${RECALL_VOCABULARY[first]} and the ${RECALL_VOCABULARY[second]} have code ${code}.  It was checked at 10:3${index} in the café\r\nand logged under /var/log/notes-${code}.txt — done ${code}`,
        )
        .assistant('Noted.');
    }
    for (const [turn, words] of asks.entries()) {
      builder.user(
        `Question ${turn}: what about the ${words.map((word) => RECALL_VOCABULARY[word]).join(' and the ')}?`,
      );
      builder.assistant(`Answer ${turn}.`);
    }
    const built = builder.build().thread;
    return { thread: withAppendRecall(built, { appendTurnShare: 0.5 }), compacted: notes.length * 2 };
  }

  function renderAll(thread: Thread, compacted: number, provider: ProviderName, tokenizer: Tokenizer) {
    const plan = notesSummaryPlan(thread, compacted);
    const cache = createRenderCache();
    const budget = tokenBudget({
      maxInputTokens: 1_000_000,
      outputReserveTokens: 0,
      safetyBufferTokens: 0,
      rehydrationReserveTokens: 2_000,
    });
    return callPrefixes(thread, compacted + 1).map((prefix) => {
      const result = renderPromptSync(renderInput(provider, prefix, plan, { budget, cache, tokenizer }));
      return { request: result.request, tokens: result.tokens, recall: result.report.recall };
    });
  }

  /** The same tokenizer without `countJoined` (and without a cache): the block counted whole. */
  function countingWhole(tokenizer: Tokenizer): Tokenizer {
    return {
      id: tokenizer.id,
      count: (text) => tokenizer.count(text),
      countMessage: (message: Message, provider) => tokenizer.countMessage(message, provider),
      countTools: (tools, provider) => tokenizer.countTools(tools, provider),
      ...(tokenizer.countRequest ? { countRequest: tokenizer.countRequest.bind(tokenizer) } : {}),
    };
  }

  it('renders, counts and reports exactly what counting the block whole does', { timeout: 120_000 }, () => {
    let recalled = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(7), fc.nat(7), fc.nat(9_999)), { minLength: 3, maxLength: 8 }),
        fc.array(fc.uniqueArray(fc.nat(7), { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 4 }),
        fc.constantFrom<ProviderName>('anthropic', 'openai-chat', 'openai-responses'),
        (notes, asks, provider) => {
          const { thread, compacted } = longNotesThread(notes, asks);
          const model = provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o';
          const joined = renderAll(
            thread,
            compacted,
            provider,
            createTokenizer({ model, cache: createCountCache() }),
          );
          const whole = renderAll(
            thread,
            compacted,
            provider,
            countingWhole(createTokenizer({ model, cache: false })),
          );
          expect(joined).toEqual(whole);
          recalled += joined.reduce((sum, call) => sum + call.recall.recalled.length, 0);
        },
      ),
      { numRuns: 40 },
    );
    // Not vacuous: the renders recalled notes.
    expect(recalled).toBeGreaterThan(0);
  });

  it("hands the encoder each recalled note's middle once, for its hit, never again for its block", () => {
    const inner = getEncoder('o200k_base');
    const calls: string[] = [];
    const encoder: TokenEncoder = {
      backend: 'gpt-tokenizer',
      encoding: 'o200k_base',
      countTokens(text) {
        calls.push(text);
        return inner.countTokens(text);
      },
    };
    const { thread, compacted } = longNotesThread(
      [
        [0, 1, 1111],
        [2, 3, 2222],
        [4, 5, 3333],
      ],
      [[0], [2], [4]],
    );
    const tokenizer = createTokenizer({ model: 'gpt-4o', encoder, cache: createCountCache() });
    const renders = renderAll(thread, compacted, 'openai-chat', tokenizer);
    const hits = renders.flatMap((call) => call.recall.recalled);
    expect(hits.length).toBeGreaterThan(0);
    // Each note's text reaches the encoder when its hit is counted; counted whole, the block would send it again.
    const encodings = [1111, 2222, 3333].map(
      (code) => calls.filter((call) => call.includes(`notes-${code}.txt`)).length,
    );
    expect(Math.max(...encodings)).toBe(1);
  });
});
