import { createHash } from 'node:crypto';
import {
  renderSummary,
  STRUCTURED_SUMMARY_SCHEMA_VERSION,
  type SummarizeRequest,
  type SummarizeResult,
  type Summarizer,
  type SummaryCache,
  type SummaryCacheKey,
  stableStringify,
} from '@compactor/core';

/** Where {@link createCachedSummarizer} keeps summaries, and what else goes in their keys. */
export interface CachedSummarizerOptions {
  cache: SummaryCache;
  /**
   * The policy version used when a request carries none (the planner always sends the thread's own,
   * `SummarizeRequest.policyVersion`, so bumping one thread's policy re-summarizes that thread).
   */
  policyVersion: string;
  /**
   * Tokens of rendered summary text, for the cache entry.
   * @defaultValue 4 characters per token
   */
  countTokens?: (text: string) => number;
}

/**
 * SHA-256 of everything that determines a summary's content.
 *
 * @param request - The span and what the summary folds in.
 * @returns The hash, in hex.
 */
export function summaryContentHash(request: SummarizeRequest): string {
  const material = stableStringify({
    messages: request.messages.map((message) => ({
      id: message.id,
      role: message.role,
      content: message.content,
    })),
    previousSummary: request.previousSummary ?? null,
    instructions: request.instructions ?? null,
    toolDurability: request.toolDurability ?? null,
    // Only when given, so the keys of every request without them are unchanged.
    ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
  });
  return createHash('sha256').update(material).digest('hex');
}

/**
 * The same span is never paid for twice: keyed by content hash, summary schema version, policy
 * version, model id and prompt version (ADR-0014), scoped by tenant. Only LLM and extractive
 * summaries are stored; a fallback is retried next time.
 *
 * @param inner - The summarizer to call on a miss.
 * @param options - The cache and the policy version.
 * @returns A summarizer that answers hits with `via: 'cache'` at no cost.
 */
export function createCachedSummarizer(inner: Summarizer, options: CachedSummarizerOptions): Summarizer {
  const countTokens = options.countTokens ?? ((text: string) => Math.ceil(text.length / 4));
  return {
    id: inner.id,
    modelId: inner.modelId,
    promptVersion: inner.promptVersion,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const key: SummaryCacheKey = {
        contentHash: summaryContentHash(request),
        schemaVersion: STRUCTURED_SUMMARY_SCHEMA_VERSION,
        policyVersion: request.policyVersion ?? options.policyVersion,
        modelId: inner.modelId,
        promptVersion: inner.promptVersion,
      };
      const cached = await options.cache.get(request.tenantId, key);
      if (cached) {
        return {
          summary: cached.summary,
          summarizerId: inner.id,
          modelId: inner.modelId,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          via: 'cache',
        };
      }
      const result = await inner.summarize(request);
      // Only a real summary is worth keeping; a fallback is retried next time.
      if (result.via === 'llm' || result.via === 'extractive') {
        await options.cache.set(request.tenantId, key, {
          summary: result.summary,
          summaryTokenCount: countTokens(renderSummary(result.summary)),
          costUsd: result.costUsd,
          createdAt: new Date().toISOString(),
        });
      }
      return result;
    },
  };
}
