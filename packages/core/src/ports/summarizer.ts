import type { ToolDurabilityPolicy } from '../durability/policy.js';
import type { SpanReference } from '../plan/span.js';
import type { StructuredSummary } from '../summary/structured-summary.js';
import type { ThreadMessage } from '../thread/thread.js';

/** A span to summarize, and what the summary builds on. */
export interface SummarizeRequest {
  tenantId: string;
  threadId: string;
  span: SpanReference;
  messages: readonly ThreadMessage[];
  /** The summary this round builds on (chained compaction). */
  previousSummary?: StructuredSummary;
  /** Extra instructions from a manual compaction. */
  instructions?: string;
  /** The thread's durability policy: which tool results carry key fields that must be copied. */
  toolDurability?: ToolDurabilityPolicy;
  /**
   * The thread's policy `version` (ADR-0014): part of the summary cache key, so bumping a thread's
   * policy re-summarizes. The planner always sets it; a cache without it uses its configured default.
   */
  policyVersion?: string;
  /** The most tokens the model call may write (its `max_tokens`; pi: 0.8 × reserveTokens). */
  maxOutputTokens?: number;
  /** Replaces the summarizer's own system prompt (the session service's `systemPrompt`). */
  systemPrompt?: string;
  /**
   * false: when the model fails, fail (the caller leaves the history unchanged) instead of falling
   * back to the extractive summary or truncation (the policy's `onSummaryFailure: 'leave-unchanged'`).
   */
  fallback?: boolean;
  signal?: AbortSignal;
}

/** A summary and what it cost. */
export interface SummarizeResult {
  summary: StructuredSummary;
  summarizerId: string;
  modelId: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Which link of the fallback chain produced it. */
  via: 'llm' | 'extractive' | 'truncation' | 'cache';
}

/** Turns a span of messages into a structured summary. */
export interface Summarizer {
  readonly id: string;
  readonly modelId: string;
  readonly promptVersion: string;
  /**
   * @param request - The span and what the summary builds on.
   * @returns The summary, its cost, and which link of the chain produced it.
   */
  summarize(request: SummarizeRequest): Promise<SummarizeResult>;
}
