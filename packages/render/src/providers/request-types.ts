import type {
  AiSdkMessage,
  AiSdkTool,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicTool,
  OpenAIChatMessage,
  OpenAIChatTool,
  OpenAIResponsesItem,
  OpenAIResponsesTool,
} from './wire-types.js';

/**
 * The request shapes the renderer emits (the provider's own field names, typed field for field in
 * `wire-types.ts`). The runtime adds what the renderer does not own: `model`,
 * `max_tokens`/`max_output_tokens`, sampling settings, `thinking`.
 * Treat them as read-only: message objects are shared with the render cache.
 */
export type WireObject = Readonly<Record<string, unknown>>;

export interface AnthropicRequest {
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  messages: AnthropicMessage[];
}

export interface OpenAIChatRequest {
  messages: OpenAIChatMessage[];
  tools?: OpenAIChatTool[];
}

export interface OpenAIResponsesRequest {
  instructions?: string;
  input: OpenAIResponsesItem[];
  tools?: OpenAIResponsesTool[];
}

export interface AiSdkRequest {
  system?: string;
  messages: AiSdkMessage[];
  /** Plain JSON Schema tools: wrap each `inputSchema` with the SDK's `jsonSchema()`. */
  tools?: Record<string, AiSdkTool>;
}

export interface RequestByProvider {
  anthropic: AnthropicRequest;
  'openai-chat': OpenAIChatRequest;
  'openai-responses': OpenAIResponsesRequest;
  'ai-sdk': AiSdkRequest;
}
