import type { ContentPart, ToolDefinition, ToolResultPart } from '@compactor/core';
import { IMAGE_MEDIA_TYPES, type ProviderFormat, type RequestParts } from './provider-format.js';

type Part = Record<string, unknown>;

/**
 * Vercel AI SDK (v5+) `ModelMessage[]` plus `system` and plain tool definitions. The profile is
 * portable: it satisfies the strictest provider behind the SDK (user first, no system messages
 * inside the conversation, results right after their calls). Tools carry JSON Schema; wrap each
 * `inputSchema` with the SDK's `jsonSchema()` before passing them to `generateText`/`streamText`.
 */
export const aiSdkFormat: ProviderFormat = {
  provider: 'ai-sdk',
  userFirst: true,
  systemRoleInConversation: false,
  keepReasoning() {
    // Provider signatures would have to travel in providerOptions, specific to one provider.
    return false;
  },
  canSendMedia(part) {
    if (part.source.kind === 'artifact') return false;
    if (part.type === 'image') return IMAGE_MEDIA_TYPES.has(part.mediaType);
    return part.mediaType === 'application/pdf';
  },
  formatMessage(message) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const parts = message.content.map(part);
    // ModelMessage takes no image part from the assistant; the same bytes go as a file part.
    return [{ role, content: role === 'assistant' ? parts.map(imageAsFile) : parts }];
  },
  formatResult(result: ToolResultPart) {
    const failed = result.outcome === 'failure';
    const media = result.media ?? [];
    if (media.length > 0) {
      // A result with images or documents is a `content` output: its text, then each medium (ADR-0311).
      const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
      const value = [{ type: 'text', text }, ...media.map(resultMedia)];
      return {
        type: 'tool-result',
        toolCallId: result.toolCallId,
        toolName: result.toolName,
        output: { type: 'content', value },
      };
    }
    const output =
      typeof result.content === 'string'
        ? { type: failed ? 'error-text' : 'text', value: result.content }
        : { type: failed ? 'error-json' : 'json', value: result.content };
    return { type: 'tool-result', toolCallId: result.toolCallId, toolName: result.toolName, output };
  },
  groupResults(results) {
    return [{ role: 'tool', content: results }];
  },
  formatTools(tools: readonly ToolDefinition[]) {
    return tools.map((tool) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema,
    }));
  },
  buildRequest({ system, tools, messages }: RequestParts) {
    const toolSet: Record<string, unknown> = {};
    for (const tool of tools as { name: string; description?: string; inputSchema: unknown }[]) {
      toolSet[tool.name] = {
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema,
      };
    }
    return {
      ...(system !== '' ? { system } : {}),
      messages,
      ...(tools.length > 0 ? { tools: toolSet } : {}),
    };
  },
  prependedMessages(_system: string) {
    return 0;
  },
  emptyRequest() {
    return { messages: [] };
  },
};

function part(content: ContentPart): Part {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: content.text };
    case 'tool_call':
      return { type: 'tool-call', toolCallId: content.id, toolName: content.name, input: content.input };
    case 'image':
      return {
        type: 'image',
        image: content.source.kind === 'url' ? content.source.url : sourceData(content),
        mediaType: content.mediaType,
      };
    case 'document':
      return {
        type: 'file',
        data: content.source.kind === 'url' ? content.source.url : sourceData(content),
        mediaType: content.mediaType,
        ...(content.title ? { filename: content.title } : {}),
      };
    default:
      return { type: 'text', text: '' };
  }
}

/** One medium of a tool result as a `content` output item. */
function resultMedia(content: NonNullable<ToolResultPart['media']>[number]): Part {
  const image = content.type === 'image';
  if (content.source.kind === 'url') {
    return image
      ? { type: 'image-url', url: content.source.url }
      : { type: 'file-url', url: content.source.url, mediaType: content.mediaType };
  }
  return {
    type: image ? 'image-data' : 'file-data',
    data: sourceData(content),
    mediaType: content.mediaType,
    ...(!image && content.title ? { filename: content.title } : {}),
  };
}

function imageAsFile(content: Part): Part {
  if (content.type !== 'image') return content;
  return { type: 'file', data: content.image, mediaType: content.mediaType };
}

function sourceData(content: { source: { kind: string; data?: string } }): string {
  return content.source.data ?? '';
}
