import type {
  AiSdkMessage,
  AiSdkTool,
  AnthropicBetaMessage,
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

/**
 * The same body when it carries a provider's `compaction` block (ADR-0250): only a thread holding
 * an opaque Anthropic part renders one, and only the beta Messages API takes it. Get it typed so
 * with `anthropicBetaRequest(request)`.
 */
export interface AnthropicBetaRequest {
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  messages: AnthropicBetaMessage[];
}

/**
 * The request typed for `client.beta.messages.create` when it carries a provider's `compaction`
 * block (ADR-0250), or undefined when it carries none (send it with `client.messages.create`).
 * `AnthropicRequest` is the non-beta type: a compaction block is the one thing it can hold that
 * the type does not say, and only when the thread holds an opaque Anthropic part.
 *
 * @param request - A rendered Anthropic request.
 * @returns The same object typed as a beta request, or undefined.
 */
export function anthropicBetaRequest(
  request: AnthropicRequest | AnthropicBetaRequest,
): AnthropicBetaRequest | undefined {
  for (const message of request.messages) {
    for (const block of message.content) if (block.type === 'compaction') return request;
  }
  return undefined;
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
