import type {
  DocumentPart,
  ImagePart,
  Message,
  ProviderName,
  ReasoningPart,
  ToolDefinition,
  ToolResultPart,
} from '@compactor/core';

/** Where Anthropic `cache_control` breakpoints go; ignored by the other formats. */
export interface CacheBreakpoints {
  tools: boolean;
  system: boolean;
  /** Indexes into the emitted messages whose last cacheable block gets a breakpoint. */
  messageIndexes: number[];
}

export interface RequestParts {
  system: string;
  tools: readonly unknown[];
  messages: readonly unknown[];
  breakpoints: CacheBreakpoints;
}

/**
 * What differs between providers. The renderer works on core-shaped messages; a format first
 * prepares a message (the adapted core message is also what gets counted), then turns it into
 * the provider's wire shape.
 */
export interface ProviderFormat {
  readonly provider: ProviderName;
  /** The conversation must open with a user message (Anthropic, and the portable AI SDK profile). */
  readonly userFirst: boolean;
  /** System messages from the log keep a system role in place; otherwise they become user notes. */
  readonly systemRoleInConversation: boolean;
  /** Whether a reasoning part from the log is sent back (Anthropic signed thinking only). */
  keepReasoning(part: ReasoningPart): boolean;
  /**
   * Whether an opaque payload of this provider must open the conversation, standing for everything
   * before it (Anthropic's `compaction` block with content, ADR-0250). Absent: opaque parts are sent in place.
   */
  opensConversation?(payload: Readonly<Record<string, unknown>>): boolean;
  /** Whether the provider takes this image or document inline in a user message. */
  canSendMedia(part: ImagePart | DocumentPart): boolean;
  /** Title given to a document that has none (OpenAI sends a filename with every file). */
  readonly defaultDocumentTitle?: string;
  /**
   * The prepared message split the way the wire splits it, so each wire message's framing is
   * counted (Responses sends an assistant turn as one item per text block group and per call).
   */
  countUnits?(message: Message): Message[];
  /** One prepared user, assistant or system message → its wire messages (or items). */
  formatMessage(message: Message): unknown[];
  /** One prepared tool result (content already resolved to what is sent) → a block, message or item. */
  formatResult(part: ToolResultPart): unknown;
  /**
   * Where a tool result cannot hold images or documents (OpenAI Chat and Responses), the user message
   * that carries a result's media after the results (ADR-0311); undefined when it has none. Absent:
   * `formatResult` puts them inside the result.
   */
  formatResultMedia?(part: ToolResultPart): unknown | undefined;
  /** The formatted results answering one assistant message → wire messages placed right after it. */
  groupResults(results: unknown[]): unknown[];
  formatTools(tools: readonly ToolDefinition[]): unknown[];
  buildRequest(parts: RequestParts): unknown;
  /** Wire messages `buildRequest` puts before the conversation (OpenAI Chat's system message). */
  prependedMessages(system: string): number;
  /** Return the request with no message content, for measuring the request-level overhead. */
  emptyRequest(): unknown;
}

export const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Object results are sent as JSON text where the provider only takes strings. */
export function resultContentText(content: ToolResultPart['content']): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
