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

/** The Messages API body's `system`, `tools` and `messages`. */
export interface AnthropicRequest {
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  messages: AnthropicMessage[];
}

/** The Chat Completions body's `messages` (system first) and `tools`. */
export interface OpenAIChatRequest {
  messages: OpenAIChatMessage[];
  tools?: OpenAIChatTool[];
}

/** The Responses API body's `instructions`, stateless `input` items and `tools`. */
export interface OpenAIResponsesRequest {
  instructions?: string;
  input: OpenAIResponsesItem[];
  tools?: OpenAIResponsesTool[];
}

/** A Vercel AI SDK call's `system`, `messages` and `tools`. */
export interface AiSdkRequest {
  system?: string;
  messages: AiSdkMessage[];
  /** Plain JSON Schema tools: wrap each `inputSchema` with the SDK's `jsonSchema()`. */
  tools?: Record<string, AiSdkTool>;
}

/** The request shape each provider format renders to. */
export interface RequestByProvider {
  anthropic: AnthropicRequest;
  'openai-chat': OpenAIChatRequest;
  'openai-responses': OpenAIResponsesRequest;
  'ai-sdk': AiSdkRequest;
}
