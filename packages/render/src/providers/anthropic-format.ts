import {
  type ContentPart,
  inlineMediaData,
  type Message,
  type ToolDefinition,
  type ToolResultPart,
} from '@compactor/core';
import {
  IMAGE_MEDIA_TYPES,
  type ProviderFormat,
  type RequestParts,
  resultContentText,
} from './provider-format.js';

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Anthropic Messages API (`system`, `tools`, `messages`); the runtime adds `model` and `max_tokens`. */
export const anthropicFormat: ProviderFormat = {
  provider: 'anthropic',
  userFirst: true,
  systemRoleInConversation: false,
  keepReasoning(part) {
    // Thinking blocks are only accepted back with their signature; redacted ones carry their data there.
    return (part.signature ?? '') !== '' && (part.redacted === true || part.text !== '');
  },
  opensConversation(payload) {
    // A compaction block with content must be the conversation's first block; one with null content is a no-op.
    return isAnthropicCompactionBoundary(payload);
  },
  canSendMedia(part) {
    if (part.source.kind === 'artifact') return false;
    if (part.type === 'image') return IMAGE_MEDIA_TYPES.has(part.mediaType);
    return part.mediaType === 'application/pdf';
  },
  formatMessage(message) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    return [{ role, content: message.content.map(block) } satisfies AnthropicMessage];
  },
  formatResult(part: ToolResultPart) {
    const text = resultContentText(part.content);
    // A result's images and documents go inside it, after its text (Anthropic takes both there, ADR-0311).
    const media = part.media ?? [];
    const result: Block = {
      type: 'tool_result',
      tool_use_id: part.toolCallId,
      content: media.length === 0 ? text : [{ type: 'text', text }, ...media.map(block)],
    };
    if (part.outcome === 'failure') result.is_error = true;
    return result;
  },
  groupResults(results) {
    return [{ role: 'user', content: results as Block[] } satisfies AnthropicMessage];
  },
  formatTools(tools: readonly ToolDefinition[]) {
    return tools.map((tool) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      input_schema: objectSchema(tool.inputSchema),
    }));
  },
  buildRequest({ system, tools, messages, breakpoints }: RequestParts) {
    const request: Record<string, unknown> = {};
    if (system !== '') {
      request.system = [
        { type: 'text', text: system, ...(breakpoints.system ? { cache_control: EPHEMERAL } : {}) },
      ];
    }
    if (tools.length > 0) {
      request.tools = breakpoints.tools
        ? [...tools.slice(0, -1), { ...(tools.at(-1) as Block), cache_control: EPHEMERAL }]
        : tools;
    }
    let withBreakpoints = messages as AnthropicMessage[];
    if (breakpoints.messageIndexes.length > 0) {
      withBreakpoints = [...withBreakpoints];
      for (const index of breakpoints.messageIndexes) {
        const message = withBreakpoints[index];
        if (message) withBreakpoints[index] = withCacheControl(message);
      }
    }
    request.messages = withBreakpoints;
    return request;
  },
  prependedMessages(_system: string) {
    return 0;
  },
  emptyRequest() {
    return { messages: [] };
  },
};

/** Anthropic takes only object schemas; one that omits `type` is sent as an object schema (bytes kept when it says so). */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === 'object' ? schema : { ...schema, type: 'object' };
}

/** Copy-on-write: cached message objects are shared between renders and never mutated. */
function withCacheControl(message: AnthropicMessage): AnthropicMessage {
  const content = [...message.content];
  for (let index = content.length - 1; index >= 0; index -= 1) {
    const type = content[index]!.type;
    // Thinking blocks cannot carry cache_control; a provider's opaque block is sent as it came (ADR-0250).
    if (typeof type !== 'string' || !CACHEABLE_BLOCKS.has(type)) continue;
    content[index] = { ...content[index]!, cache_control: EPHEMERAL };
    return { role: message.role, content };
  }
  return message;
}

/** The blocks this format writes that may carry a breakpoint. */
const CACHEABLE_BLOCKS: ReadonlySet<string> = new Set([
  'text',
  'tool_use',
  'tool_result',
  'image',
  'document',
]);

/**
 * Whether an Anthropic payload is a `compaction` block with content: the API takes it only as the
 * conversation's first block, standing for what came before it (ADR-0250).
 *
 * @param payload - An opaque part's payload.
 * @returns True for a compaction block whose content is a non-empty string.
 */
export function isAnthropicCompactionBoundary(payload: Readonly<Record<string, unknown>>): boolean {
  return payload.type === 'compaction' && typeof payload.content === 'string' && payload.content !== '';
}

function block(part: ContentPart): Block {
  switch (part.type) {
    case 'opaque':
      // The provider's own object, unchanged (ADR-0250).
      return part.payload as Block;
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      return part.redacted === true
        ? { type: 'redacted_thinking', data: part.signature }
        : { type: 'thinking', thinking: part.text, signature: part.signature };
    case 'tool_call':
      return { type: 'tool_use', id: part.id, name: part.name, input: part.input };
    case 'image':
      return { type: 'image', source: mediaSource(part) };
    case 'document':
      return { type: 'document', source: mediaSource(part), ...(part.title ? { title: part.title } : {}) };
    case 'tool_result':
      // Results are formatted by formatResult; a prepared message never carries one.
      return { type: 'text', text: resultContentText(part.content) };
  }
}

/** Anthropic's `url` source takes web URLs only: a `data:` URL goes as the base64 it holds (ADR-0333). */
function mediaSource(part: Extract<Message['content'][number], { source: unknown }>): Block {
  const inline = inlineMediaData(part.source);
  if (inline) return { type: 'base64', media_type: part.mediaType, data: inline.data };
  return part.source.kind === 'url'
    ? { type: 'url', url: part.source.url }
    : { type: 'base64', media_type: part.mediaType, data: '' };
}
