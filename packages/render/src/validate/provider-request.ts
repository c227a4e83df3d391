import type { ProviderName } from '@compactor/core';
import { validateAiSdkRequest } from './ai-sdk.js';
import { validateAnthropicRequest } from './anthropic.js';
import { validateOpenAIChatRequest } from './openai-chat.js';
import { validateOpenAIResponsesRequest } from './openai-responses.js';
import type { RequestValidation } from './request-validation.js';

const validators: Record<ProviderName, (request: unknown) => RequestValidation> = {
  anthropic: validateAnthropicRequest,
  'openai-chat': validateOpenAIChatRequest,
  'openai-responses': validateOpenAIResponsesRequest,
  'ai-sdk': validateAiSdkRequest,
};

/**
 * Validate a request against the structural rules of its provider format.
 *
 * @param provider - The format the request is in.
 * @param request - The request body.
 * @returns Valid, or every rule broken, each as `path: message`.
 */
export function validateProviderRequest(provider: ProviderName, request: unknown): RequestValidation {
  return validators[provider](request);
}
