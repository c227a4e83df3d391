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

/** The validator for a provider format. */
export function validateProviderRequest(provider: ProviderName, request: unknown): RequestValidation {
  return validators[provider](request);
}
