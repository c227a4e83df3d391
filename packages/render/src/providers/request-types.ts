/**
 * The request shapes the renderer emits (the provider's own field names). The runtime adds what the
 * renderer does not own: `model`, `max_tokens`/`max_output_tokens`, sampling settings, `thinking`.
 * Treat them as read-only: message objects are shared with the render cache.
 */
export type WireObject = Readonly<Record<string, unknown>>;

export interface AnthropicRequest {
  system?: { type: 'text'; text: string; cache_control?: { type: 'ephemeral' } }[];
  tools?: WireObject[];
  messages: { role: 'user' | 'assistant'; content: WireObject[] }[];
}

export interface OpenAIChatRequest {
  messages: WireObject[];
  tools?: WireObject[];
}

export interface OpenAIResponsesRequest {
  instructions?: string;
  input: WireObject[];
  tools?: WireObject[];
}

export interface AiSdkRequest {
  system?: string;
  messages: WireObject[];
  /** Plain JSON Schema tools: wrap each `inputSchema` with the SDK's `jsonSchema()`. */
  tools?: Record<string, { description?: string; inputSchema: Record<string, unknown> }>;
}

export interface RequestByProvider {
  anthropic: AnthropicRequest;
  'openai-chat': OpenAIChatRequest;
  'openai-responses': OpenAIResponsesRequest;
  'ai-sdk': AiSdkRequest;
}
