import type { Logger, Summarizer, SummaryCache } from '@compactor/core';
import {
  createAnthropicSummarizer,
  createCachedSummarizer,
  createResilientSummarizer,
} from '@compactor/summarizer';
import type { SummarizerConfig } from '../config/runtime-config.js';

/** What the summarizer chain is built from. */
export interface BuildSummarizerOptions {
  config: SummarizerConfig;
  cache: SummaryCache;
  /** Part of every cache key: bump it to re-summarize after a policy change. */
  policyVersion: string;
  logger: Logger;
  /** Replaces the configured model link (e.g. a custom summarizer); still cached and still behind the fallbacks. */
  primary?: Summarizer;
}

/**
 * The summarizer chain. Without an API key: the extractive summarizer (with head-and-tail
 * truncation as its fallback), behind the summary cache. With `ANTHROPIC_API_KEY`: Claude behind
 * the cache, inside the resilient chain (Claude, then extractive, then truncation).
 *
 * The cache sits around the model link, not around the whole chain, on purpose: the chain's
 * fallback output would otherwise be stored under the model's cache key, and every later request
 * for that span would get the fallback even after the model is back.
 *
 * @param options - Summarizer configuration, cache, policy version, logger and an optional primary.
 * @returns The summarizer.
 */
export function buildSummarizer(options: BuildSummarizerOptions): Summarizer {
  const cached = (inner: Summarizer) =>
    createCachedSummarizer(inner, { cache: options.cache, policyVersion: options.policyVersion });
  const model =
    options.primary ??
    (options.config.kind === 'anthropic'
      ? createAnthropicSummarizer({
          apiKey: options.config.apiKey,
          ...(options.config.baseUrl ? { baseURL: options.config.baseUrl } : {}),
          ...(options.config.model ? { model: options.config.model } : {}),
          logger: options.logger,
        })
      : undefined);
  if (model) return createResilientSummarizer({ primary: cached(model), logger: options.logger });
  return cached(createResilientSummarizer({ logger: options.logger }));
}
