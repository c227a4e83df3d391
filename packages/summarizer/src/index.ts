export {
  type AnthropicSummarizerOptions,
  createAnthropicSummarizer,
  DEFAULT_SUMMARY_MODEL,
  SummarizerOutputError,
} from './anthropic/anthropic-summarizer.js';
export { costOfUsage, type ReportedUsage } from './anthropic/pricing.js';
export { buildSummaryPrompt, SUMMARY_PROMPT_VERSION, SUMMARY_SYSTEM_PROMPT } from './anthropic/prompt.js';
export { type RetryOptions, withRetries } from './anthropic/retry.js';
export { llmSummarySchema, SUMMARY_TOOL_NAME, summaryToolDefinition } from './anthropic/summary-tool.js';
export { chunkTranscript, formatMessage, type TranscriptOptions } from './anthropic/transcript.js';
export {
  type CachedSummarizerOptions,
  createCachedSummarizer,
  summaryContentHash,
} from './cached-summarizer.js';
export {
  createExtractiveSummarizer,
  EXTRACTIVE_SUMMARIZER_VERSION,
  type ExtractiveSummarizerOptions,
} from './extractive/extractive-summarizer.js';
export { isConstraintSentence } from './extractive/user-intent.js';
export { createResilientSummarizer, type ResilientSummarizerOptions } from './resilient-summarizer.js';
export { clip, headTailTruncate, sentencesOf, textOf } from './text.js';
