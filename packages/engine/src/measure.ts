import type { CompactionPlan, ProviderName, Thread, ThreadMessage, Tokenizer } from '@compactor/core';
import {
  type ConversationMeasure,
  createRenderCache,
  measureConversation,
  type RenderCache,
} from '@compactor/render';

/** Counts one thread's tokens the way its renderer does. */
export interface ThreadMeasurer {
  /** Message tokens of the prompt rendered under `plan`, counted exactly as the renderer counts them. */
  measure(plan: CompactionPlan | null): number;
  /** Tokens of one message in the measurer's wire format. */
  countMessage(message: ThreadMessage): number;
  /** Tokens of a text. */
  countText(text: string): number;
}

/**
 * Measure with the renderer's own slots, so "under target" means what the agent runtime will see.
 * The render cache memoizes per-message pieces, and each measurement starts from the previous one:
 * a planner step re-derives only the positions its records changed (ADR-0300).
 *
 * @param thread - The thread to measure.
 * @param tokenizer - The thread's tokenizer.
 * @param provider - The wire format counted.
 * @param cache - Render cache shared across measurements (default: a new one).
 * @returns The measurer.
 */
export function createRenderMeasurer(
  thread: Thread,
  tokenizer: Tokenizer,
  provider: ProviderName,
  cache: RenderCache = createRenderCache(),
): ThreadMeasurer {
  // A plan object is measured once (plans are never edited in place): a check measures the current
  // plan for its trigger and the planner measures it again as its starting point (ADR-0280).
  const measured = new WeakMap<CompactionPlan, number>();
  let measuredWithoutPlan: number | undefined;
  let last: ConversationMeasure | undefined;
  const render = (plan: CompactionPlan | null) => {
    last = measureConversation({ thread, plan, provider, tokenizer, cache }, last);
    return last.tokens;
  };
  return {
    measure(plan) {
      if (plan === null) {
        measuredWithoutPlan ??= render(null);
        return measuredWithoutPlan;
      }
      let tokens = measured.get(plan);
      if (tokens === undefined) {
        tokens = render(plan);
        measured.set(plan, tokens);
      }
      return tokens;
    },
    countMessage: (message) => tokenizer.countMessage(message, provider),
    countText: (text) => tokenizer.count(text),
  };
}
