import {
  type CompactionPlan,
  type ProviderName,
  type Thread,
  type ThreadMessage,
  type Tokenizer,
  tokenBudget,
} from '@compactor/core';
import { createRenderCache, type RenderCache, renderPromptSync } from '@compactor/render';

/** Counts one thread's tokens the way its renderer does. */
export interface ThreadMeasurer {
  /** Message tokens of the prompt rendered under `plan`, counted exactly as the renderer counts them. */
  measure(plan: CompactionPlan | null): number;
  /** Tokens of one message in the measurer's wire format. */
  countMessage(message: ThreadMessage): number;
  /** Tokens of a text. */
  countText(text: string): number;
}

/** A ceiling no real prompt reaches: measuring must never trigger the renderer's emergency fit. */
const UNBOUNDED = tokenBudget({
  maxInputTokens: Number.MAX_SAFE_INTEGER,
  safetyBufferTokens: 0,
  rehydrationReserveTokens: 0,
});

/**
 * Measure with the renderer itself, so "under target" means what the agent runtime will see.
 * The render cache memoizes per-message counts, so re-measuring after each planner step only
 * counts what changed.
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
  const render = (plan: CompactionPlan | null) =>
    renderPromptSync({
      thread,
      plan,
      system: '',
      tools: [],
      budget: UNBOUNDED,
      provider,
      tokenizer,
      cache,
      promptCaching: false,
      recall: false,
      addReadArtifactTool: false,
    }).tokens.messages;
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
