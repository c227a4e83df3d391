/**
 * What the renderer emits, field for field, per provider format. Each type is structurally
 * compatible with the provider SDK's own request type (proven without casts by
 * `test/sdk-request-types.unit.test.ts`), so `anthropic.messages.create({ model, max_tokens,
 * ...request })` and `generateText({ model, ...request })` type-check as they are. These are
 * declarations of the wire form, not re-exports: render imports no SDK.
 * Where a provider accepts more than we send (other block kinds, settings), these are narrower.
 */

/** JSON as providers accept it in tool results and arguments. */
export type JsonValue = null | string | number | boolean | JsonObject | JsonValue[];
export interface JsonObject {
  [key: string]: JsonValue;
}

// ---------------------------------------------------------------- Anthropic Messages API

export interface AnthropicCacheControl {
  type: 'ephemeral';
}
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
export interface AnthropicImageBlock {
  type: 'image';
  source:
    | { type: 'url'; url: string }
    | { type: 'base64'; media_type: AnthropicImageMediaType; data: string };
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicDocumentBlock {
  type: 'document';
  source: { type: 'url'; url: string } | { type: 'base64'; media_type: 'application/pdf'; data: string };
  title?: string;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  /** Text, or text then the result's images and documents (ADR-0311). */
  content: string | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}
/**
 * Anthropic's `compaction` block (a beta of the Messages API), sent back as the provider returned
 * it (ADR-0250). Typed by the fields every caller may read; any other field of the payload (its
 * `tool_changes`) travels unchanged too.
 */
export interface AnthropicCompactionBlock {
  type: 'compaction';
  content: string | null;
  encrypted_content?: string | null;
  signature?: string | null;
}
/** A block of a request that carries a provider's compaction block: for `client.beta.messages.create`. */
export type AnthropicBetaContentBlock = AnthropicContentBlock | AnthropicCompactionBlock;
export interface AnthropicBetaMessage {
  role: 'user' | 'assistant';
  content: AnthropicBetaContentBlock[];
}
/** Anthropic requires an object schema at the top of a tool's input. */
export interface AnthropicInputSchema {
  type: 'object';
  properties?: unknown;
  required?: string[];
  [key: string]: unknown;
}
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: AnthropicInputSchema;
  cache_control?: AnthropicCacheControl;
}

// ---------------------------------------------------------------- OpenAI Chat Completions

export interface OpenAIChatTextPart {
  type: 'text';
  text: string;
}
export interface OpenAIChatImagePart {
  type: 'image_url';
  image_url: { url: string };
}
export interface OpenAIChatFilePart {
  type: 'file';
  file: { filename: string; file_data: string };
}
export interface OpenAIChatSystemMessage {
  role: 'system';
  content: string | OpenAIChatTextPart[];
}
export interface OpenAIChatUserMessage {
  role: 'user';
  content: string | Array<OpenAIChatTextPart | OpenAIChatImagePart | OpenAIChatFilePart>;
}
export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export interface OpenAIChatAssistantMessage {
  role: 'assistant';
  content: string | OpenAIChatTextPart[] | null;
  tool_calls?: OpenAIChatToolCall[];
}
export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}
export type OpenAIChatMessage =
  | OpenAIChatSystemMessage
  | OpenAIChatUserMessage
  | OpenAIChatAssistantMessage
  | OpenAIChatToolMessage;
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

// ---------------------------------------------------------------- OpenAI Responses API

export type OpenAIResponsesInputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' }
  | { type: 'input_file'; filename: string; file_data: string };
export interface OpenAIResponsesInputMessage {
  type: 'message';
  role: 'user' | 'system';
  content: OpenAIResponsesInputPart[];
}
/**
 * A previous assistant turn as the API takes it back: output_text parts without the `id`, `status`
 * and `annotations` of the response it came from. The SDK's input union only lists the full output
 * message, so this item alone is not assignable to its `ResponseInputItem` (see the type test).
 */
export interface OpenAIResponsesAssistantMessage {
  type: 'message';
  role: 'assistant';
  content: Array<{ type: 'output_text'; text: string }>;
}
export interface OpenAIResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}
export interface OpenAIResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string;
}
/** A Responses reasoning item with its encrypted content, sent back as returned (ADR-0250). */
export interface OpenAIResponsesReasoningItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  encrypted_content?: string | null;
}
/** A Responses compaction item (its encrypted summary), sent back as returned (ADR-0250). */
export interface OpenAIResponsesCompactionItem {
  type: 'compaction';
  encrypted_content: string;
  id?: string | null;
}
export type OpenAIResponsesItem =
  | OpenAIResponsesInputMessage
  | OpenAIResponsesAssistantMessage
  | OpenAIResponsesFunctionCall
  | OpenAIResponsesFunctionCallOutput
  | OpenAIResponsesReasoningItem
  | OpenAIResponsesCompactionItem;
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

// ---------------------------------------------------------------- Vercel AI SDK (ModelMessage)

export interface AiSdkTextPart {
  type: 'text';
  text: string;
}
export interface AiSdkImagePart {
  type: 'image';
  /** A URL or base64 data. */
  image: string;
  mediaType: string;
}
export interface AiSdkFilePart {
  type: 'file';
  /** A URL or base64 data. */
  data: string;
  mediaType: string;
  filename?: string;
}
export interface AiSdkToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
}
export type AiSdkToolResultOutput =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: JsonValue }
  | {
      /** A result with images or documents: its text, then each medium (ADR-0311). */
      type: 'content';
      value: Array<
        | { type: 'text'; text: string }
        | { type: 'image-data' | 'file-data'; data: string; mediaType: string; filename?: string }
        | { type: 'image-url'; url: string }
        | { type: 'file-url'; url: string; mediaType?: string }
      >;
    };
export interface AiSdkToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
}
export interface AiSdkUserMessage {
  role: 'user';
  content: Array<AiSdkTextPart | AiSdkImagePart | AiSdkFilePart>;
}
/** The AI SDK takes no image part from the assistant: assistant images are sent as file parts. */
export interface AiSdkAssistantMessage {
  role: 'assistant';
  content: Array<AiSdkTextPart | AiSdkFilePart | AiSdkToolCallPart>;
}
export interface AiSdkToolMessage {
  role: 'tool';
  content: AiSdkToolResultPart[];
}
export type AiSdkMessage = AiSdkUserMessage | AiSdkAssistantMessage | AiSdkToolMessage;
export interface AiSdkTool {
  description?: string;
  /** Plain JSON Schema: wrap it with the SDK's `jsonSchema()` to build a `ToolSet`. */
  inputSchema: Record<string, unknown>;
}
