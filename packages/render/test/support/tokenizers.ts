import type { ProviderName } from '@compactor/core';
import { createTokenizer, type ProviderTokenizer } from '@compactor/tokenizer';

const tokenizers = new Map<string, ProviderTokenizer>();

/** The real tokenizer, for a model of the provider's family (Claude behind Anthropic and the AI SDK). */
export function tokenizerFor(provider: ProviderName): ProviderTokenizer {
  const model =
    provider === 'openai-chat' || provider === 'openai-responses' ? 'gpt-4o' : 'claude-sonnet-4-5';
  let tokenizer = tokenizers.get(model);
  if (!tokenizer) {
    tokenizer = createTokenizer({ model });
    tokenizers.set(model, tokenizer);
  }
  return tokenizer;
}

export const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'];

/** The tokenizer's own count of a whole request, independent of the renderer's bookkeeping. */
export function independentCount(provider: ProviderName, request: unknown): number {
  return tokenizerFor(provider).countRequest(request as never, provider);
}
