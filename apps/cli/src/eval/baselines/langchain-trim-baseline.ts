import type { ThreadMessage } from '@compactor/core';
import { trimMessages } from '@langchain/core/messages';
import type { Baseline, BaselineInput } from './baseline.js';
import { toLangChainMessage } from './langchain-messages.js';
import {
  type BaselineResult,
  type MeasuredRender,
  messageCounter,
  renderSelection,
  resultOf,
} from './render-selection.js';

/** Rounds of "trim, render, count, move the budget by the difference" at most. */
const MAX_ROUNDS = 6;

/**
 * LangChain's `trimMessages` (strategy `last`, whole messages, starting on a human message,
 * keeping a leading system message), counting tokens with our tokenizer so budgets mean the same.
 * Its budget starts at the ceiling minus what the request costs beyond the messages. Per-message
 * counts and the request's count differ (an image priced as an image is sent as a text note, the
 * renderer adds an opening), so the budget is then moved by the difference between the ceiling
 * and the rendered request, and LangChain trims again: the largest request that fits is kept.
 */
export const langchainTrimBaseline: Baseline = {
  name: 'langchain-trim',
  source: '@langchain/core trimMessages',
  async run(input: BaselineInput): Promise<BaselineResult> {
    const count = messageCounter(input);
    const byId = new Map(input.thread.messages.map((message) => [message.id, message]));
    const langchainMessages = input.thread.messages.map(toLangChainMessage);
    const whole = renderSelection(input, input.thread.messages);
    const messageTokens = input.thread.messages.reduce((total, message) => total + count(message), 0);
    const overhead = Math.max(0, whole.tokens - messageTokens);
    const tried = new Set<number>();
    let maxTokens = Math.max(0, input.ceiling - overhead);
    let best: { measured: MeasuredRender; selection: ThreadMessage[]; maxTokens: number } | undefined;
    let last: typeof best;
    while (tried.size < MAX_ROUNDS && !tried.has(maxTokens)) {
      tried.add(maxTokens);
      const trimmed = await trimMessages(langchainMessages, {
        maxTokens,
        strategy: 'last',
        tokenCounter: (messages) =>
          messages.reduce((total, message) => total + count(byId.get(message.id ?? '')!), 0),
        includeSystem: true,
        startOn: 'human',
        allowPartial: false,
      });
      // trimMessages can return holes (seen on a tau-bench conversation with startOn 'human'): skip them.
      const keptIds = new Set(trimmed.flatMap((message) => (message ? [message.id ?? ''] : [])));
      const selection = input.thread.messages.filter((message) => keptIds.has(message.id));
      last = { measured: renderSelection(input, selection), selection, maxTokens };
      const fits = last.measured.tokens <= input.ceiling;
      if (fits && (!best || last.measured.tokens > best.measured.tokens)) best = last;
      if (fits && selection.length === input.thread.messages.length) break;
      maxTokens = Math.max(0, maxTokens + input.ceiling - last.measured.tokens);
    }
    const chosen = best ?? last!;
    const notes = [`trimMessages maxTokens ${chosen.maxTokens} (${tried.size} round(s))`];
    if (!best) notes.push(`over the ceiling by ${chosen.measured.tokens - input.ceiling} tokens`);
    return resultOf(
      chosen.measured,
      chosen.selection.map((message) => message.id),
      notes,
    );
  },
};
