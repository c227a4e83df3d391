import {
  type CompactionPlan,
  type ProviderName,
  type Thread,
  type TokenBudget,
  tokenBudget,
} from '@compactor/core';
import { type RenderCache, type RenderInput, type RenderResult, renderPrompt } from '../../src/index.js';
import { SECURITY_CONTEXT, SYSTEM_PROMPT, TOOLS } from './fixtures.js';
import type { MemoryArtifactStore } from './memory-artifact-store.js';
import { tokenizerFor } from './tokenizers.js';

export const ROOMY_BUDGET: TokenBudget = tokenBudget({
  maxInputTokens: 200_000,
  outputReserveTokens: 16_000,
  safetyBufferTokens: 500,
  rehydrationReserveTokens: 4_000,
});

export function renderInput(
  provider: ProviderName,
  thread: Thread,
  plan: CompactionPlan | null,
  overrides: Partial<RenderInput> = {},
): RenderInput {
  return {
    thread,
    plan,
    system: SYSTEM_PROMPT,
    tools: TOOLS,
    budget: ROOMY_BUDGET,
    provider,
    tokenizer: tokenizerFor(provider),
    ...overrides,
  };
}

export function renderFixture(
  provider: ProviderName,
  fixture: { thread: Thread; plan: CompactionPlan | null; store?: MemoryArtifactStore },
  overrides: Partial<RenderInput> & { cache?: RenderCache } = {},
): Promise<RenderResult> {
  return renderPrompt(
    renderInput(provider, fixture.thread, fixture.plan, {
      ...(fixture.store ? { artifactStore: fixture.store, securityContext: SECURITY_CONTEXT } : {}),
      ...overrides,
    }),
  );
}

/** JSON with every Anthropic cache_control marker removed (the cache ignores them when matching prefixes). */
export function withoutCacheControl(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, child: unknown) => (key === 'cache_control' ? undefined : child)),
  );
}

/** The wire messages or items of a request, whatever the provider. */
export function wireMessages(request: unknown): unknown[] {
  const record = request as { messages?: unknown[]; input?: unknown[] };
  return record.messages ?? record.input ?? [];
}

/** Every text a request carries, flattened (for "is this fact still in the prompt" checks). */
export function requestText(request: unknown): string {
  return JSON.stringify(request);
}
