import {
  type CompactionPlan,
  type ProviderName,
  type RecallPolicy,
  type Thread,
  tokenBudget,
} from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { expect } from 'vitest';
import { createRenderCache, type RenderCache, renderPromptSync } from '../../src/index.js';
import { validateProviderRequest } from '../../src/validate/index.js';
import { ids, planOf, summarize } from './plans.js';
import { renderInput } from './render-helpers.js';
import { PROVIDERS } from './tokenizers.js';

/** How a recall block starts in the rendered request. */
export const RECALL_MARKER = '[Recalled from earlier in this conversation';

/** The words the notes name and the questions ask about. */
export const RECALL_VOCABULARY = [
  'locker',
  'violin',
  'harbour',
  'pottery',
  'marathon',
  'glacier',
  'lantern',
  'orchard',
];

/**
 * A coding-agent thread for the append-only recall properties: notes (each naming two words of the
 * vocabulary and a code, answered "Noted."), then turns that ask about some words, each worked through
 * with `exchanges` tool calls (plus `extraFirstTurnCalls` in the first turn) and answered.
 *
 * @returns The thread and how many messages the notes take (the span a plan summarizes).
 */
export function recallNotesThread(
  name: string,
  notes: readonly (readonly [number, number, number])[],
  turns: readonly { asks: readonly number[]; exchanges: number }[],
  extraFirstTurnCalls = 0,
): { thread: Thread; compacted: number } {
  const builder = threadBuilder(name, { tenantId: 'tenant-1' });
  for (const [index, [first, second, code]] of notes.entries())
    builder
      .user(
        `Note ${index}: the ${RECALL_VOCABULARY[first]} and the ${RECALL_VOCABULARY[second]} have code ${code}.`,
      )
      .assistant('Noted.');
  for (const [turn, { asks, exchanges }] of turns.entries()) {
    builder.user(
      `Question ${turn}: what about the ${asks.map((ask) => RECALL_VOCABULARY[ask]).join(' and the ')}?`,
    );
    for (let call = 0; call < exchanges + (turn === 0 ? extraFirstTurnCalls : 0); call += 1) {
      builder.assistant(`Looking ${turn}.${call}.`, {
        toolCalls: [
          { id: `c${turn}x${call}`, name: 'read_file', input: { path: `notes-${turn}-${call}.txt` } },
        ],
      });
      builder.toolResult(`c${turn}x${call}`, `part ${call} of turn ${turn}: ${'shelf '.repeat(20)}`);
    }
    builder.assistant(`Answer ${turn}.`);
  }
  return { thread: builder.build().thread, compacted: notes.length * 2 };
}

/**
 * The thread before each call an agent makes from message `from` on: before every assistant message
 * that follows a non-assistant one.
 */
export function callPrefixes(thread: Thread, from: number): Thread[] {
  const prefixes: Thread[] = [];
  for (let index = from; index < thread.messages.length; index += 1) {
    const message = thread.messages[index]!;
    if (message.role !== 'assistant' || thread.messages[index - 1]!.role === 'assistant') continue;
    const messages = thread.messages.slice(0, index);
    prefixes.push({ ...thread, messages, version: messages.at(-1)!.seq });
  }
  return prefixes;
}

/** Renders with only a rehydration reserve beside `maxInputTokens` (no output reserve, no safety buffer). */
export function renderWithin(
  thread: Thread,
  plan: CompactionPlan,
  provider: ProviderName,
  maxInputTokens: number,
  cache: RenderCache,
) {
  const budget = tokenBudget({
    maxInputTokens,
    outputReserveTokens: 0,
    safetyBufferTokens: 0,
    rehydrationReserveTokens: 200,
  });
  return renderPromptSync(renderInput(provider, thread, plan, { budget, cache }));
}

/** The calls of a plan version over the notes, and a ceiling at `fraction` of the last call's roomy request. */
export interface TightCalls {
  prefixes: Thread[];
  plan: CompactionPlan;
  ceiling: number;
}

/**
 * The calls of the live turns of a {@link recallNotesThread} (its notes summarized by the plan) under
 * a ceiling of `fraction` of what the last call's request takes with room to spare.
 */
export function tightCalls(
  thread: Thread,
  compacted: number,
  provider: ProviderName,
  fraction: number,
): TightCalls {
  const plan = notesSummaryPlan(thread, compacted);
  const prefixes = callPrefixes(thread, compacted + 1);
  const roomy = renderWithin(prefixes.at(-1)!, plan, provider, 1_000_000, createRenderCache());
  return { prefixes, plan, ceiling: Math.max(1, Math.floor(roomy.tokens.total * fraction)) };
}

/**
 * {@link renderWithin}, checked: the request is valid, within the ceiling, its recall counted as sent and
 * each hit shown once. Undefined when the render refuses (the protected tail alone over the ceiling: the
 * main property test's business).
 */
export function renderChecked(
  thread: Thread,
  plan: CompactionPlan,
  provider: ProviderName,
  ceiling: number,
  cache: RenderCache,
): ReturnType<typeof renderWithin> | undefined {
  let result: ReturnType<typeof renderWithin>;
  try {
    result = renderWithin(thread, plan, provider, ceiling, cache);
  } catch {
    return undefined;
  }
  expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
  expect(result.tokens.total).toBeLessThanOrEqual(ceiling);
  expect(result.tokens.recall).toBe(result.report.recall.tokens);
  const recalled = result.report.recall.recalled.map((hit) => hit.messageId);
  expect(new Set(recalled).size).toBe(recalled.length);
  return result;
}

/**
 * Every call rendered with a cache kept across the calls, as an agent runtime keeps one, equals a fresh
 * render (request and recall report, or the same refusal): a render is a pure function of the thread.
 */
export function expectWarmRendersAsFresh(
  prefixes: readonly Thread[],
  plan: CompactionPlan,
  provider: ProviderName,
  ceiling: number,
): void {
  const warm = createRenderCache();
  for (const thread of prefixes) {
    const outcome = (cache: RenderCache) => {
      try {
        const result = renderWithin(thread, plan, provider, ceiling, cache);
        return { request: result.request, recall: result.report.recall };
      } catch (error) {
        return { refused: String(error) };
      }
    };
    expect(outcome(warm)).toEqual(outcome(createRenderCache()));
  }
}

/**
 * The arbitraries every append-only recall property draws its thread from: notes (two words of the
 * vocabulary and a code each), live turns asking about some words with up to `maxExchanges` tool calls,
 * and a provider. Spread into a `fc.record` beside the property's own settings.
 */
export function recallNotesArbitraries(bounds: {
  notes: { minLength: number; maxLength: number };
  turns: { minLength: number; maxLength: number };
  maxExchanges: number;
}) {
  return {
    notes: fc.array(fc.tuple(fc.nat(7), fc.nat(7), fc.nat(9_999)), bounds.notes),
    turns: fc.array(
      fc.record({
        asks: fc.uniqueArray(fc.nat(7), { minLength: 1, maxLength: 3 }),
        exchanges: fc.nat(bounds.maxExchanges),
      }),
      bounds.turns,
    ),
    provider: fc.constantFrom<ProviderName>(...PROVIDERS),
  };
}

/** The thread with append-only recall (ADR-0276) and the given recall settings over its policy's. */
export function withAppendRecall(thread: Thread, recall: Partial<RecallPolicy>): Thread {
  return {
    ...thread,
    policy: {
      ...thread.policy,
      recall: { ...thread.policy.recall, placement: 'append', ...recall },
    },
  };
}

/** A plan summarizing the notes (the first `compacted` messages), based on the message at `basis`. */
export function notesSummaryPlan(thread: Thread, compacted: number, basis = compacted - 1): CompactionPlan {
  return planOf(thread, [summarize(thread, ids(1, compacted), { facts: [{ text: 'notes' }] })], {
    basedOnSeq: thread.messages[basis]!.seq,
  });
}
