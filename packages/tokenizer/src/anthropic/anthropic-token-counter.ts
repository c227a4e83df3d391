import Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '@compactor/core';
import { noopLogger, ValidationError } from '@compactor/core';
import type { AnthropicRequest } from '../counting/requests/anthropic-request.js';
import { mapAnthropicError } from './map-anthropic-error.js';

/** How {@link createAnthropicTokenCounter} reaches the count-tokens endpoint. */
export interface AnthropicTokenCounterOptions {
  apiKey: string;
  /**
   * Tests point it at a loopback server.
   * @defaultValue the SDK's (https://api.anthropic.com)
   */
  baseURL?: string;
  /** Used when the request names no model. */
  model?: string;
  /**
   * SDK retries of 429/5xx before the error surfaces.
   * @defaultValue 2 (the SDK's)
   */
  maxRetries?: number;
  /**
   * Per request.
   * @defaultValue the SDK's
   */
  timeoutMs?: number;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
}

/** A rendered Anthropic request, optionally naming its model. */
export type AnthropicCountRequest = AnthropicRequest & { model?: string; thinking?: unknown };

/** Exact counts from Anthropic itself. */
export interface AnthropicTokenCounter {
  /**
   * Exact input tokens of the request, as Anthropic counts them (`POST /v1/messages/count_tokens`).
   *
   * @param request - The rendered request; its `model` wins over the counter's.
   * @returns The input tokens Anthropic reports.
   * @throws ValidationError without a model; a `CompactorError` from {@link mapAnthropicError} when the call fails.
   */
  countRequest(request: AnthropicCountRequest): Promise<number>;
}

/**
 * Anthropic's count-tokens endpoint through `@anthropic-ai/sdk`: exact counts for Claude when a
 * network call is acceptable (calibration, audits, a final check before sending). Only the
 * fields the endpoint accepts are sent: generation settings such as `max_tokens` are dropped.
 *
 * @param options - API key, endpoint, default model and retries.
 * @returns The counter.
 */
export function createAnthropicTokenCounter(options: AnthropicTokenCounterOptions): AnthropicTokenCounter {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  });
  const logger = options.logger ?? noopLogger;
  return {
    async countRequest(request) {
      const model = request.model ?? options.model;
      if (!model) {
        throw new ValidationError('count_tokens needs a model', [
          { path: 'model', message: 'set request.model or options.model' },
        ]);
      }
      const params = {
        model,
        messages: request.messages ?? [],
        ...(request.system !== undefined ? { system: request.system } : {}),
        ...(request.tools !== undefined ? { tools: request.tools } : {}),
        ...(request.tool_choice !== undefined ? { tool_choice: request.tool_choice } : {}),
        ...(request.thinking !== undefined ? { thinking: request.thinking } : {}),
      } as unknown as Anthropic.MessageCountTokensParams;
      try {
        const result = await client.messages.countTokens(params);
        logger.debug({ model, inputTokens: result.input_tokens }, 'anthropic count_tokens');
        return result.input_tokens;
      } catch (error) {
        const mapped = mapAnthropicError(error, model);
        logger.warn(
          { model, code: mapped.code, isRetryable: mapped.isRetryable },
          'anthropic count_tokens failed',
        );
        throw mapped;
      }
    },
  };
}
