export { validateAiSdkRequest } from './ai-sdk.js';
export { validateAnthropicRequest } from './anthropic.js';
export { validateOpenAIChatRequest } from './openai-chat.js';
export { validateOpenAIResponsesRequest } from './openai-responses.js';
export { validateProviderRequest } from './provider-request.js';
export type { RequestValidation } from './request-validation.js';
