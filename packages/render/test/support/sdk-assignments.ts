/**
 * What an integrator writes: spread the rendered request into the SDK call and add the model and
 * limits. The workspace typecheck compiles these against the SDKs' own types with no casts.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { ModelMessage } from 'ai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type {
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type {
  AiSdkRequest,
  AnthropicRequest,
  OpenAIChatRequest,
  OpenAIResponsesAssistantMessage,
  OpenAIResponsesItem,
  OpenAIResponsesRequest,
} from '../../src/index.js';

export function anthropicParams(request: AnthropicRequest): MessageCreateParamsNonStreaming {
  return { model: 'claude-sonnet-4-5', max_tokens: 1_024, ...request };
}
export function openAIChatParams(request: OpenAIChatRequest): ChatCompletionCreateParamsNonStreaming {
  return { model: 'gpt-4.1', ...request };
}
/** Every Responses item but a previous assistant message (see `OpenAIResponsesAssistantMessage`). */
export function openAIResponsesItems(
  items: Exclude<OpenAIResponsesItem, OpenAIResponsesAssistantMessage>[],
): ResponseInputItem[] {
  return items;
}
export function openAIResponsesTools(
  request: OpenAIResponsesRequest,
): ResponseCreateParamsNonStreaming['tools'] {
  return request.tools;
}
export function aiSdkMessages(request: AiSdkRequest): ModelMessage[] {
  return request.messages;
}
