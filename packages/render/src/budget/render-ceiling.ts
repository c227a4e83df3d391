import type { TokenBudget } from '@compactor/core';

/**
 * The render's hard ceiling: everything sent (system, tools, formatting, messages, rehydration)
 * must fit in the window once the answer's reserve and the safety buffer are set aside. The soft
 * threshold and the planner's estimates (systemPromptTokens, toolSchemaTokens...) are the worker's
 * business; the renderer counts what it actually sends.
 *
 * @param budget - The thread's token budget.
 * @returns maxInputTokens − outputReserveTokens − safetyBufferTokens, at least 0.
 */
export function renderCeiling(budget: TokenBudget): number {
  return Math.max(0, budget.maxInputTokens - budget.outputReserveTokens - budget.safetyBufferTokens);
}
