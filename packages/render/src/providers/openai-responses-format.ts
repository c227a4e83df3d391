import type { ContentPart, Message, OpaquePart, ToolDefinition, ToolResultPart } from '@compactor/core';
import {
  dataUrl,
  IMAGE_MEDIA_TYPES,
  type ProviderFormat,
  type RequestParts,
  resultContentText,
} from './provider-format.js';

type Item = Record<string, unknown>;

/** OpenAI Responses API input items (`instructions`, `input`, `tools`); stateless, no `previous_response_id`. */
export const openaiResponsesFormat: ProviderFormat = {
  provider: 'openai-responses',
  userFirst: false,
  systemRoleInConversation: true,
  defaultDocumentTitle: 'document.pdf',
  countUnits(message) {
    if (message.role !== 'assistant') return [message];
    const units: Message[] = [];
    for (const segment of assistantSegments(message.content)) {
      if (!Array.isArray(segment)) {
        units.push({ id: message.id, role: 'assistant', content: [segment] });
        continue;
      }
      const texts = segment.filter((part) => part.type === 'text');
      if (texts.length > 0) units.push({ id: message.id, role: 'assistant', content: texts });
      for (const part of segment) {
        if (part.type === 'tool_call') units.push({ id: message.id, role: 'assistant', content: [part] });
      }
    }
    return units;
  },
  keepReasoning() {
    // Reasoning items need OpenAI's own encrypted content and ids; foreign reasoning is never sent.
    return false;
  },
  canSendMedia(part) {
    if (part.source.kind === 'artifact') return false;
    if (part.type === 'image') return IMAGE_MEDIA_TYPES.has(part.mediaType);
    return part.mediaType === 'application/pdf' && part.source.kind === 'base64';
  },
  formatMessage(message) {
    if (message.role === 'assistant') {
      const items: Item[] = [];
      for (const segment of assistantSegments(message.content)) {
        if (!Array.isArray(segment)) {
          // The provider's own item (encrypted reasoning, compaction), unchanged and in place (ADR-0250).
          items.push(segment.payload);
          continue;
        }
        const texts = segment.filter((part) => part.type === 'text');
        if (texts.length > 0) {
          items.push({
            type: 'message',
            role: 'assistant',
            content: texts.map((part) => ({ type: 'output_text', text: part.text })),
          });
        }
        for (const part of segment) {
          if (part.type !== 'tool_call') continue;
          items.push({
            type: 'function_call',
            call_id: part.id,
            name: part.name,
            arguments: JSON.stringify(part.input),
          });
        }
      }
      return items;
    }
    return [
      {
        type: 'message',
        role: message.role === 'system' ? 'system' : 'user',
        content: message.content.map(inputPart),
      },
    ];
  },
  formatResult(part: ToolResultPart) {
    return {
      type: 'function_call_output',
      call_id: part.toolCallId,
      output: resultContentText(part.content),
    };
  },
  formatResultMedia(part: ToolResultPart) {
    // The same rule as Chat Completions (ADR-0311): the output stays text, the media follow in a user message.
    const media = part.media ?? [];
    return media.length === 0 ? undefined : { type: 'message', role: 'user', content: media.map(inputPart) };
  },
  groupResults(results) {
    return results;
  },
  formatTools(tools: readonly ToolDefinition[]) {
    return tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.inputSchema,
      // Arbitrary runtime schemas are not guaranteed to meet strict mode's rules.
      strict: false,
    }));
  },
  buildRequest({ system, tools, messages }: RequestParts) {
    return {
      ...(system !== '' ? { instructions: system } : {}),
      input: messages,
      ...(tools.length > 0 ? { tools } : {}),
    };
  },
  prependedMessages(_system: string) {
    return 0;
  },
  emptyRequest() {
    return { input: [] };
  },
};

/**
 * An assistant message's content cut at its opaque parts: each opaque part alone, and between them
 * the runs of other parts (each sent as its text message, then its calls). Without an opaque part,
 * the whole content is one run, as before ADR-0250.
 */
function assistantSegments(content: readonly ContentPart[]): (ContentPart[] | OpaquePart)[] {
  const segments: (ContentPart[] | OpaquePart)[] = [];
  let run: ContentPart[] = [];
  for (const part of content) {
    if (part.type !== 'opaque') {
      run.push(part);
      continue;
    }
    if (run.length > 0) segments.push(run);
    run = [];
    segments.push(part);
  }
  if (run.length > 0) segments.push(run);
  return segments;
}

function inputPart(part: ContentPart): Item {
  switch (part.type) {
    case 'image':
      return {
        type: 'input_image',
        image_url: part.source.kind === 'url' ? part.source.url : dataUrl(part.mediaType, sourceData(part)),
        detail: 'auto',
      };
    case 'document':
      return {
        type: 'input_file',
        filename: part.title ?? 'document.pdf',
        file_data: dataUrl(part.mediaType, sourceData(part)),
      };
    case 'text':
      return { type: 'input_text', text: part.text };
    default:
      return { type: 'input_text', text: '' };
  }
}

function sourceData(part: { source: { kind: string; data?: string } }): string {
  return part.source.data ?? '';
}
