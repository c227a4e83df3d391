import Anthropic from '@anthropic-ai/sdk';
import {
  CompactorError,
  type Logger,
  mergeSummaries,
  noopLogger,
  type StructuredSummary,
  type SummarizeRequest,
  type SummarizeResult,
  type Summarizer,
} from '@compactor/core';
import { costOfUsage } from './pricing.js';
import { buildSummaryPrompt, SUMMARY_PROMPT_VERSION, SUMMARY_SYSTEM_PROMPT } from './prompt.js';
import { withRetries } from './retry.js';
import {
  llmSummarySchema,
  SUMMARY_TOOL_NAME,
  summaryToolDefinition,
  toStructuredSummary,
} from './summary-tool.js';
import { chunkTranscript, type TranscriptOptions } from './transcript.js';

/** The model used when none is configured: cheap and fast enough for background summaries. */
export const DEFAULT_SUMMARY_MODEL = 'claude-haiku-4-5';

/** How {@link createAnthropicSummarizer} reaches and calls Claude. */
export interface AnthropicSummarizerOptions {
  apiKey: string;
  /** Another endpoint speaking the Messages API (a proxy, or the testkit's fake server). */
  baseURL?: string;
  /** @defaultValue {@link DEFAULT_SUMMARY_MODEL} */
  model?: string;
  /**
   * The summarizer model's own context window.
   * @defaultValue 200000
   */
  contextWindow?: number;
  /** @defaultValue 4096 */
  maxOutputTokens?: number;
  /**
   * Per request.
   * @defaultValue 60000
   */
  timeoutMs?: number;
  /**
   * Attempts per call, the first included (429, 529, 5xx, timeouts and connection errors are retried).
   * @defaultValue 4
   */
  attempts?: number;
  /** @defaultValue 1000 */
  baseDelayMs?: number;
  /** @defaultValue 30000 */
  maxDelayMs?: number;
  /**
   * Counts prompt text, to split spans larger than the model's window.
   * @defaultValue a conservative 3 characters per token
   */
  countTokens?: (text: string) => number;
  /** @defaultValue `{ maxResultChars: 6000, maxCallInputChars: 1000 }` */
  transcript?: Partial<TranscriptOptions>;
  /**
   * Retries are logged as warnings.
   * @defaultValue `noopLogger`
   */
  logger?: Logger;
  /**
   * Jitter source in [0, 1), for tests.
   * @defaultValue `Math.random`
   */
  random?: () => number;
}

/** Invalid or empty output from the model (after its own retry). Not retryable by the caller: fall back. */
export class SummarizerOutputError extends CompactorError {
  /**
   * @param message - What was wrong with the output.
   * @param details - Model and usage figures, for logs.
   */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('summarizer', message, { isRetryable: false, details });
    this.name = 'SummarizerOutputError';
  }
}

const PROMPT_OVERHEAD_TOKENS = 1500;

function isRetryableApiError(error: unknown): boolean {
  if (error instanceof Anthropic.APIConnectionError) return !(error instanceof Anthropic.APIUserAbortError);
  if (error instanceof Anthropic.APIError) {
    const status = error.status ?? 0;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  return false;
}

function retryAfterSeconds(error: unknown): number | undefined {
  if (!(error instanceof Anthropic.APIError)) return undefined;
  const header = error.headers?.get?.('retry-after');
  const seconds = header ? Number(header) : Number.NaN;
  return Number.isFinite(seconds) ? seconds : undefined;
}

/**
 * Claude as a summarizer (Haiku by default): structured output through a forced tool call,
 * validated with zod; retries with backoff and jitter; cost from reported usage; spans larger
 * than the model's window are summarized in parts, each part folding in the previous ones.
 *
 * @param options - API key, model and retry settings.
 * @returns A summarizer whose `summarize` rejects with {@link SummarizerOutputError} when the model
 *   gives no valid, non-empty summary twice in a row or the previous summary leaves no room, and with
 *   the SDK's error when a call still fails after its retries.
 */
export function createAnthropicSummarizer(options: AnthropicSummarizerOptions): Summarizer {
  const model = options.model ?? DEFAULT_SUMMARY_MODEL;
  const maxOutputTokens = options.maxOutputTokens ?? 4096;
  const contextWindow = options.contextWindow ?? 200_000;
  const countTokens = options.countTokens ?? ((text: string) => Math.ceil(text.length / 3));
  const transcriptOptions: TranscriptOptions = {
    maxResultChars: options.transcript?.maxResultChars ?? 6000,
    maxCallInputChars: options.transcript?.maxCallInputChars ?? 1000,
  };
  const logger = options.logger ?? noopLogger;
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs ?? 60_000,
  });

  async function callOnce(prompt: string, request: SummarizeRequest) {
    const signal = request.signal;
    return withRetries(
      () =>
        client.messages.create(
          {
            model,
            // A policy's bound on the call (pi: 0.8 × reserveTokens) wins over the deployment's.
            max_tokens: request.maxOutputTokens ?? maxOutputTokens,
            system: request.systemPrompt ?? SUMMARY_SYSTEM_PROMPT,
            tools: [summaryToolDefinition],
            tool_choice: { type: 'tool', name: SUMMARY_TOOL_NAME },
            messages: [{ role: 'user', content: prompt }],
          },
          signal ? { signal } : undefined,
        ),
      {
        attempts: options.attempts ?? 4,
        baseDelayMs: options.baseDelayMs ?? 1000,
        maxDelayMs: options.maxDelayMs ?? 30_000,
        ...(signal ? { signal } : {}),
        ...(options.random ? { random: options.random } : {}),
        isRetryable: isRetryableApiError,
        retryAfterSeconds,
        onRetry: (error, attempt, delayMs) =>
          logger.warn({ err: error, attempt, delayMs, model }, 'summarizer call failed; retrying'),
      },
    );
  }

  /** One summary of one transcript chunk; invalid output is asked for once more before giving up. */
  async function summarizeChunk(prompt: string, request: SummarizeRequest) {
    let inputTokens = 0;
    let outputTokens = 0;
    let costUsd = 0;
    let lastProblem = '';
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const response = await callOnce(prompt, request);
      inputTokens += response.usage.input_tokens;
      outputTokens += response.usage.output_tokens;
      costUsd += costOfUsage(response.model ?? model, response.usage);
      const toolUse = response.content.find(
        (block) => block.type === 'tool_use' && block.name === SUMMARY_TOOL_NAME,
      );
      if (!toolUse || toolUse.type !== 'tool_use') {
        lastProblem = `no ${SUMMARY_TOOL_NAME} call in the response (stop reason ${response.stop_reason})`;
        continue;
      }
      const parsed = llmSummarySchema.safeParse(toolUse.input);
      if (!parsed.success) {
        lastProblem = `invalid summary: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`;
        continue;
      }
      const summary = toStructuredSummary(parsed.data, spanEnd(request));
      if (summary.facts.length === 0 && summary.decisions.length === 0 && summary.currentTask === null) {
        lastProblem = 'empty summary';
        continue;
      }
      return { summary, inputTokens, outputTokens, costUsd };
    }
    throw new SummarizerOutputError(`the model did not produce a valid summary: ${lastProblem}`, {
      model,
      inputTokens,
      outputTokens,
      costUsd,
    });
  }

  return {
    id: `anthropic:${model}`,
    modelId: model,
    promptVersion: SUMMARY_PROMPT_VERSION,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const previousTokens = request.previousSummary
        ? countTokens(JSON.stringify(request.previousSummary))
        : 0;
      const chunkBudget =
        contextWindow -
        (request.maxOutputTokens ?? maxOutputTokens) -
        PROMPT_OVERHEAD_TOKENS -
        previousTokens * 2;
      if (chunkBudget < 2000) {
        throw new SummarizerOutputError('the previous summary leaves no room in the summarizer window', {
          previousTokens,
        });
      }
      const chunks = chunkTranscript(request.messages, transcriptOptions, countTokens, chunkBudget);
      let summary: StructuredSummary | undefined = request.previousSummary;
      let inputTokens = 0;
      let outputTokens = 0;
      let costUsd = 0;
      for (const [index, transcript] of chunks.entries()) {
        const prompt = buildSummaryPrompt({
          transcript,
          ...(summary ? { previousSummary: summary } : {}),
          ...(request.instructions ? { instructions: request.instructions } : {}),
          part: { index: index + 1, count: chunks.length },
        });
        const result = await summarizeChunk(prompt, request);
        inputTokens += result.inputTokens;
        outputTokens += result.outputTokens;
        costUsd += result.costUsd;
        summary = summary ? mergeSummaries(summary, result.summary) : result.summary;
      }
      if (!summary) throw new SummarizerOutputError('nothing to summarize');
      return {
        summary,
        summarizerId: `anthropic:${model}`,
        modelId: model,
        inputTokens,
        outputTokens,
        costUsd,
        via: 'llm',
      };
    },
  };
}

/** When the span ended: the newest `createdAt` among its messages, if any carry one. */
function spanEnd(request: SummarizeRequest): string | undefined {
  let latest: string | undefined;
  for (const message of request.messages) {
    if (message.createdAt !== undefined && (latest === undefined || message.createdAt > latest)) {
      latest = message.createdAt;
    }
  }
  return latest;
}
