import type { ProviderName } from '@compactor/core';
import { aiSdkFormat } from './ai-sdk-format.js';
import { anthropicFormat } from './anthropic-format.js';
import { openaiChatFormat } from './openai-chat-format.js';
import { openaiResponsesFormat } from './openai-responses-format.js';
import type { ProviderFormat } from './provider-format.js';

const formats: Record<ProviderName, ProviderFormat> = {
  anthropic: anthropicFormat,
  'openai-chat': openaiChatFormat,
  'openai-responses': openaiResponsesFormat,
  'ai-sdk': aiSdkFormat,
};

export function providerFormat(provider: ProviderName): ProviderFormat {
  return formats[provider];
}
