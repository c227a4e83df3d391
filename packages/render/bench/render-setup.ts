import { type ToolDefinition, tokenBudget } from '@compactor/core';

/** The coding agent's tools, system prompt and 200k budget every render benchmark renders with. */
export const benchTools: ToolDefinition[] = ['read', 'bash', 'edit', 'write'].map((name) => ({
  name,
  description: `The ${name} tool of the coding agent.`,
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, command: { type: 'string' } } },
}));

export const benchSystem = 'You are an expert coding assistant. '.repeat(30);

export const benchBudget = tokenBudget({
  maxInputTokens: 200_000,
  outputReserveTokens: 16_384,
  safetyBufferTokens: 500,
  rehydrationReserveTokens: 2_000,
});
