import { type ProviderName, tokenizerFamilyOf } from '@compactor/core';
import type { ModelProvider, TokenizerFamily } from './models/model-info.js';
import { type CreateTokenizerOptions, createTokenizer, type ProviderTokenizer } from './tokenizer.js';

/** What a thread says about its model: a folded `Thread`, or its `thread.created` event. */
export interface ThreadModel {
  model: string;
  contextWindow: number;
  maxOutputTokens?: number | undefined;
  /** Named at creation for a model the registry does not know (a folded `Thread` carries it). */
  tokenizerFamily?: string | undefined;
  /** A `thread.created` event's metadata, where the family travels (core's `tokenizerFamilyOf`). */
  metadata?: Record<string, unknown> | undefined;
}

function familyOf(thread: ThreadModel): string | undefined {
  return thread.tokenizerFamily ?? tokenizerFamilyOf(thread);
}

/**
 * The tokenizer for a thread: its model from the registry with the thread's window, or, for a
 * model the registry does not know, the tokenizer family the thread was created with. The one
 * resolver ingest, the engine, the CLI and every renderer of a stored thread use (ADR-0073).
 *
 * @param thread - The thread's model fields.
 * @param options - Other `createTokenizer` options (cache, backend).
 * @returns A tokenizer for the thread's model.
 * @throws UnknownModelError for an unknown model without a tokenizer family and output limit.
 * @throws ValidationError for a family that does not exist.
 */
export function tokenizerForThread(
  thread: ThreadModel,
  options: Omit<CreateTokenizerOptions, 'model' | 'modelInfo'> = {},
): ProviderTokenizer {
  return createTokenizer({
    ...options,
    model: thread.model,
    modelInfo: {
      contextWindow: thread.contextWindow,
      ...(thread.maxOutputTokens !== undefined ? { maxOutputTokens: thread.maxOutputTokens } : {}),
      ...(familyOf(thread) !== undefined ? { tokenizerFamily: familyOf(thread) as TokenizerFamily } : {}),
    },
  });
}

/** Tokenizers by thread model, shared between threads. */
export interface ThreadTokenizers {
  /**
   * The tokenizer for `thread` (`tokenizerForThread`), shared by every thread of the same model configuration.
   *
   * @param thread - The thread's model fields.
   * @returns The tokenizer.
   * @throws UnknownModelError or ValidationError as {@link tokenizerForThread} does.
   */
  forThread(thread: ThreadModel): ProviderTokenizer;
}

/**
 * `tokenizerForThread` behind a bounded cache keyed by the model configuration: tokenizers hold
 * no thread data, so threads of one model share one.
 *
 * @param maxEntries - Model configurations kept (256 by default); the oldest is evicted first.
 * @returns The cache; its `forThread` throws as {@link tokenizerForThread} does.
 */
export function createThreadTokenizers(maxEntries = 256): ThreadTokenizers {
  const cache = new Map<string, ProviderTokenizer>();
  return {
    forThread(thread) {
      const key = [
        thread.model,
        thread.contextWindow,
        thread.maxOutputTokens ?? '',
        familyOf(thread) ?? '',
      ].join('\u0000');
      let tokenizer = cache.get(key);
      if (!tokenizer) {
        tokenizer = tokenizerForThread(thread);
        cache.set(key, tokenizer);
        while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      return tokenizer;
    },
  };
}

/**
 * The wire format whose overheads a model's stored token counts use.
 *
 * @param provider - Who serves the model.
 * @returns `anthropic`, `openai-chat`, or `ai-sdk` for Google.
 */
export function countingFormatFor(provider: ModelProvider): ProviderName {
  if (provider === 'anthropic') return 'anthropic';
  if (provider === 'openai') return 'openai-chat';
  return 'ai-sdk';
}
