import type { ProviderName } from '@compactor/core';
import {
  createTokenizer,
  type ModelProvider,
  type ProviderTokenizer,
  type TokenizerFamily,
} from '@compactor/tokenizer';
import type { ThreadCreatedEvent } from './thread-origin.js';

/**
 * For a model the registry does not know, the thread's `thread.created` metadata carries the
 * tokenizer family the creator named (the event itself has no field for it).
 */
export const TOKENIZER_FAMILY_METADATA_KEY = 'tokenizerFamily';

/** The wire format whose overheads a model's stored token counts use. */
export function countingFormatFor(provider: ModelProvider): ProviderName {
  if (provider === 'anthropic') return 'anthropic';
  if (provider === 'openai') return 'openai-chat';
  return 'ai-sdk';
}

/** One tokenizer per model configuration, shared by every thread that uses it (they hold no thread data). */
export function createThreadTokenizers(maxEntries = 256) {
  const cache = new Map<string, ProviderTokenizer>();
  return {
    forThread(created: Pick<ThreadCreatedEvent, 'model' | 'contextWindow' | 'maxOutputTokens' | 'metadata'>) {
      const family = created.metadata?.[TOKENIZER_FAMILY_METADATA_KEY];
      const key = [created.model, created.contextWindow, created.maxOutputTokens ?? '', family ?? ''].join(
        '\u0000',
      );
      let tokenizer = cache.get(key);
      if (!tokenizer) {
        tokenizer = createTokenizer({
          model: created.model,
          modelInfo: {
            contextWindow: created.contextWindow,
            ...(created.maxOutputTokens !== undefined ? { maxOutputTokens: created.maxOutputTokens } : {}),
            ...(typeof family === 'string' ? { tokenizerFamily: family as TokenizerFamily } : {}),
          },
        });
        cache.set(key, tokenizer);
        while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      return tokenizer;
    },
  };
}

export type ThreadTokenizers = ReturnType<typeof createThreadTokenizers>;
