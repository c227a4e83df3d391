import {
  type Logger,
  mergeSummaries,
  noopLogger,
  type StructuredSummary,
  type SummarizeRequest,
  type SummarizeResult,
  type Summarizer,
  structuredSummarySchema,
} from '@compactor/core';
import { formatMessage } from './anthropic/transcript.js';
import { createExtractiveSummarizer } from './extractive/extractive-summarizer.js';
import { headTailTruncate } from './text.js';

/** What {@link createResilientSummarizer} tries first, and where it logs its fallbacks. */
export interface ResilientSummarizerOptions {
  /** The LLM summarizer; without one, the extractive summarizer is the primary. */
  primary?: Summarizer;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
  /**
   * The second link of the chain; default {@link createExtractiveSummarizer}. A deployment may pass a
   * tuned extractor; when it throws, the chain falls through to head-and-tail truncation.
   */
  extractive?: {
    id: string;
    modelId: string;
    promptVersion: string;
    extract(request: SummarizeRequest): StructuredSummary;
  };
}

/** What the structure guarantees, whatever a model writes: pinned facts, key fields, files. */
function structuralPart(summary: StructuredSummary): StructuredSummary {
  return {
    ...summary,
    facts: summary.facts.filter((fact) => fact.pinned),
    decisions: [],
    openItems: [],
    toolOutcomes: summary.toolOutcomes.filter((outcome) => Object.keys(outcome.keyFields).length > 0),
    currentTask: null,
    currentPlan: null,
  };
}

/** The last resort (ADR-0017): the span's transcript, head and tail. */
function truncationSummary(request: SummarizeRequest): StructuredSummary {
  const transcript = request.messages
    .map((message) => formatMessage(message, { maxResultChars: 2000, maxCallInputChars: 500 }))
    .join('\n\n');
  const truncated = structuredSummarySchema.parse({
    facts: [
      { text: `Transcript excerpt (summarization failed): ${headTailTruncate(transcript, 2000, 2000)}` },
    ],
  });
  return request.previousSummary ? mergeSummaries(request.previousSummary, truncated) : truncated;
}

/**
 * The fallback chain: the LLM (which retries transient errors and invalid output itself), then
 * the extractive summarizer, then head-and-tail truncation. A span is never lost, and the
 * structural guarantees (pinned constraints, key fields of anchoring results, files) are merged
 * into whatever the model wrote, so they never depend on the model remembering them.
 *
 * @param options - The primary summarizer and a logger.
 * @returns A summarizer that rejects only when the request's signal is aborted.
 */
export function createResilientSummarizer(options: ResilientSummarizerOptions = {}): Summarizer {
  const extractive = options.extractive ?? createExtractiveSummarizer();
  const logger = options.logger ?? noopLogger;
  const primary = options.primary;
  return {
    id: primary ? `resilient:${primary.id}` : extractive.id,
    modelId: primary?.modelId ?? extractive.modelId,
    promptVersion: primary
      ? `${primary.promptVersion}+${extractive.promptVersion}`
      : extractive.promptVersion,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      let structural: StructuredSummary | undefined;
      try {
        structural = extractive.extract(request);
      } catch (error) {
        logger.error({ err: error, threadId: request.threadId }, 'extractive summarizer failed');
      }
      if (primary) {
        try {
          const result = await primary.summarize(request);
          return structural
            ? { ...result, summary: mergeSummaries(structuralPart(structural), result.summary) }
            : result;
        } catch (error) {
          request.signal?.throwIfAborted();
          // The policy chose to leave the history unchanged rather than keep a lesser summary.
          if (request.fallback === false) throw error;
          logger.warn(
            { err: error, threadId: request.threadId, summarizer: primary.id },
            'summarizer failed; falling back to extractive',
          );
        }
      }
      const base = {
        summarizerId: extractive.id,
        modelId: 'extractive',
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
      };
      if (structural) return { ...base, summary: structural, via: 'extractive' };
      if (request.fallback === false)
        throw new Error('the extractive summarizer failed and the policy allows no fallback');
      return { ...base, summarizerId: 'truncation', summary: truncationSummary(request), via: 'truncation' };
    },
  };
}
