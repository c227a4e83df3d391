import type { Anthropic } from '@anthropic-ai/sdk';
import { type ContentPart, type Message, messagesToEvents, stableMessageId } from '@compactor/core';

/** A message as `messages.create` or `beta.messages.create` takes it. */
type MessageParam = Anthropic.Messages.MessageParam | Anthropic.Beta.Messages.BetaMessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam | Anthropic.Beta.Messages.BetaContentBlockParam;

export { stableMessageId };

/**
 * Anthropic `MessageParam`s (or the beta API's `BetaMessageParam`s) → Compactor messages. A user
 * message's `tool_result` blocks become one tool message (our log keeps results apart from what the
 * person wrote), placed before the rest of that user message, as the API reads them. An assistant
 * message's `compaction` block (server-side compaction, a beta) becomes an opaque part holding the
 * block itself, resent verbatim and in place to Anthropic only (ADR-0250).
 */
export function messageParamsToMessages(params: readonly MessageParam[]): Message[] {
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  const push = (role: Message['role'], content: ContentPart[]) => {
    if (content.length === 0) return;
    messages.push({ id: stableMessageId(messages.length, { role, content }), role, content });
  };
  for (const param of params) {
    const blocks: readonly ContentBlockParam[] =
      typeof param.content === 'string'
        ? [{ type: 'text', text: param.content }]
        : ((param.content ?? []) as readonly ContentBlockParam[]);
    if (param.role === 'assistant') {
      push(
        'assistant',
        blocks.flatMap((block) => assistantPart(block, toolNames)),
      );
      continue;
    }
    push(
      'tool',
      blocks.flatMap((block) => (block.type === 'tool_result' ? [resultPart(block, toolNames)] : [])),
    );
    push(
      'user',
      blocks.flatMap((block) => (block.type === 'tool_result' ? [] : userPart(block))),
    );
  }
  return messages;
}

function assistantPart(block: ContentBlockParam, toolNames: Map<string, string>): ContentPart[] {
  switch (block.type) {
    case 'text':
      return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    case 'tool_use':
      toolNames.set(block.id, block.name);
      return [{ type: 'tool_call', id: block.id, name: block.name, input: block.input }];
    case 'thinking':
      return [{ type: 'reasoning', text: block.thinking, signature: block.signature }];
    case 'redacted_thinking':
      return [{ type: 'reasoning', text: '', signature: block.data, redacted: true }];
    case 'compaction':
      // Signed by the server: kept as the very object it returned (ADR-0250).
      return [
        { type: 'opaque', provider: 'anthropic', payload: block as unknown as Record<string, unknown> },
      ];
    default:
      return [];
  }
}

function userPart(block: ContentBlockParam): ContentPart[] {
  switch (block.type) {
    case 'text':
      return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    case 'image':
      if (block.source.type === 'base64') {
        return [
          {
            type: 'image',
            mediaType: block.source.media_type,
            source: { kind: 'base64', data: block.source.data },
          },
        ];
      }
      if (block.source.type === 'url') {
        // A URL image has no media type in the API; ours needs one and the renderer sends only the URL.
        return [{ type: 'image', mediaType: 'image/png', source: { kind: 'url', url: block.source.url } }];
      }
      // Files uploaded to Anthropic (file_id) have no content here to keep.
      return [];
    case 'document':
      if (block.source.type === 'base64') {
        return [
          {
            type: 'document',
            mediaType: block.source.media_type,
            source: { kind: 'base64', data: block.source.data },
            ...(block.title ? { title: block.title } : {}),
          },
        ];
      }
      if (block.source.type === 'url') {
        return [
          {
            type: 'document',
            mediaType: 'application/pdf',
            source: { kind: 'url', url: block.source.url },
            ...(block.title ? { title: block.title } : {}),
          },
        ];
      }
      return [];
    default:
      return [];
  }
}

function resultPart(
  block: Anthropic.Messages.ToolResultBlockParam,
  toolNames: Map<string, string>,
): ContentPart {
  const blocks = typeof block.content === 'string' ? [] : (block.content ?? []);
  const content =
    typeof block.content === 'string'
      ? block.content
      : blocks
          .map((part) => (part.type === 'text' ? part.text : ''))
          .filter((text) => text !== '')
          .join('\n');
  // A screenshot or a read image inside the result is kept as the result's media (ADR-0311).
  const media = blocks.flatMap((part) =>
    part.type === 'image' || part.type === 'document'
      ? userPart(part as ContentBlockParam).filter(
          (converted) => converted.type === 'image' || converted.type === 'document',
        )
      : [],
  );
  return {
    type: 'tool_result',
    toolCallId: block.tool_use_id,
    toolName: toolNames.get(block.tool_use_id) ?? 'unknown_tool',
    outcome: block.is_error ? 'failure' : 'success',
    content,
    keyFields: {},
    ...(media.length > 0 ? { media } : {}),
  };
}

export { messagesToEvents };
