import type { ContentPart, ToolDefinition, ToolResultPart } from '@compactor/core';
import {
  dataUrl,
  IMAGE_MEDIA_TYPES,
  type ProviderFormat,
  type RequestParts,
  resultContentText,
} from './provider-format.js';

type ChatPart = Record<string, unknown>;

/** OpenAI Chat Completions (`messages`, `tools`); the system prompt is the first message. */
export const openaiChatFormat: ProviderFormat = {
  provider: 'openai-chat',
  userFirst: false,
  systemRoleInConversation: true,
  defaultDocumentTitle: 'document.pdf',
  keepReasoning() {
    // Reasoning from another provider (or OpenAI's own encrypted items) cannot be sent back here.
    return false;
  },
  canSendMedia(part) {
    if (part.source.kind === 'artifact') return false;
    if (part.type === 'image') return IMAGE_MEDIA_TYPES.has(part.mediaType);
    return part.mediaType === 'application/pdf' && part.source.kind === 'base64';
  },
  formatMessage(message) {
    if (message.role === 'assistant') {
      const texts = message.content.filter((part) => part.type === 'text');
      const calls = message.content.filter((part) => part.type === 'tool_call');
      const content =
        texts.length === 0
          ? null
          : texts.length === 1
            ? texts[0]!.text
            : texts.map((part) => ({ type: 'text', text: part.text }));
      return [
        {
          role: 'assistant',
          content,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.input) },
                })),
              }
            : {}),
        },
      ];
    }
    const role = message.role === 'system' ? 'system' : 'user';
    const only = message.content[0];
    if (message.content.length === 1 && only?.type === 'text') return [{ role, content: only.text }];
    return [{ role, content: message.content.map(userPart) }];
  },
  formatResult(part: ToolResultPart) {
    return { role: 'tool', tool_call_id: part.toolCallId, content: resultContentText(part.content) };
  },
  formatResultMedia(part: ToolResultPart) {
    // A tool message holds text only: a result's media follow the results in a user message (ADR-0311).
    const media = part.media ?? [];
    return media.length === 0 ? undefined : { role: 'user', content: media.map(userPart) };
  },
  groupResults(results) {
    return results;
  },
  formatTools(tools: readonly ToolDefinition[]) {
    return tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.inputSchema,
      },
    }));
  },
  buildRequest({ system, tools, messages }: RequestParts) {
    return {
      messages: system === '' ? messages : [{ role: 'system', content: system }, ...messages],
      ...(tools.length > 0 ? { tools } : {}),
    };
  },
  prependedMessages(system: string) {
    return system === '' ? 0 : 1;
  },
  emptyRequest() {
    return { messages: [] };
  },
};

function userPart(part: ContentPart): ChatPart {
  switch (part.type) {
    case 'image':
      return {
        type: 'image_url',
        image_url: {
          url: part.source.kind === 'url' ? part.source.url : dataUrl(part.mediaType, sourceData(part)),
        },
      };
    case 'document':
      return {
        type: 'file',
        file: {
          filename: part.title ?? 'document.pdf',
          file_data: dataUrl(part.mediaType, sourceData(part)),
        },
      };
    case 'text':
      return { type: 'text', text: part.text };
    default:
      // Prepared user and system messages carry only text and sendable media.
      return { type: 'text', text: '' };
  }
}

function sourceData(part: { source: { kind: string; data?: string } }): string {
  return part.source.data ?? '';
}
