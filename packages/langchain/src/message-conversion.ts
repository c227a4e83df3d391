import {
  type ContentPart,
  inlineMediaData,
  type Message,
  messagesToEvents,
  stableMessageId,
  type ToolResultPart,
} from '@compactor/core';
import type { AiSdkRequest } from '@compactor/render';
import type { ContentBlock } from '@langchain/core/messages';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from 'langchain';

export { stableMessageId };

/** LangChain messages → ours. System messages are the agent's prompt, not the log's; reasoning is not kept. */
export function baseMessagesToMessages(messages: readonly BaseMessage[]): Message[] {
  const converted: Message[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    const entry = toMessage(message, toolNames);
    if (!entry || entry.content.length === 0) continue;
    converted.push({ ...entry, id: stableMessageId(converted.length, entry) });
  }
  return converted;
}

function toMessage(message: BaseMessage, toolNames: Map<string, string>): Omit<Message, 'id'> | null {
  if (AIMessage.isInstance(message)) {
    const content: ContentPart[] = textParts(message);
    for (const call of message.tool_calls ?? []) {
      const id = call.id ?? `${call.name}-${toolNames.size}`;
      toolNames.set(id, call.name);
      content.push({ type: 'tool_call', id, name: call.name, input: call.args });
    }
    return { role: 'assistant', content };
  }
  if (ToolMessage.isInstance(message)) {
    return {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolCallId: message.tool_call_id,
          toolName: message.name ?? toolNames.get(message.tool_call_id) ?? 'unknown_tool',
          outcome: message.status === 'error' ? 'failure' : 'success',
          content: message.text,
          keyFields: {},
          // A tool's images and documents stay the result's media (ADR-0311, ADR-0332), never text.
          ...resultMedia(message),
        },
      ],
    };
  }
  if (HumanMessage.isInstance(message))
    return { role: 'user', content: [...textParts(message), ...(resultMedia(message).media ?? [])] };
  return null;
}

type ResultMedia = NonNullable<ToolResultPart['media']>;

/** A message's image and file blocks, as read through LangChain's standard content blocks. */
function resultMedia(message: BaseMessage): { media?: ResultMedia } {
  if (typeof message.content === 'string') return {};
  const media = message.contentBlocks.flatMap((block) => {
    const medium = blockMedium(block as unknown as Record<string, unknown>);
    return medium ? [medium] : [];
  });
  return media.length > 0 ? { media } : {};
}

function blockMedium(block: Record<string, unknown>): ResultMedia[number] | undefined {
  const { type, data, url, mimeType, metadata } = block;
  // LangChain leaves an OpenAI-style `image_url` given as a bare string unconverted.
  const imageUrl = block.image_url;
  const link =
    typeof url === 'string'
      ? url
      : type === 'image_url'
        ? typeof imageUrl === 'string'
          ? imageUrl
          : (imageUrl as { url?: unknown } | undefined)?.url
        : undefined;
  const image = type === 'image' || type === 'image_url';
  if (!image && type !== 'file') return undefined;
  let source: ResultMedia[number]['source'];
  let declared = typeof mimeType === 'string' ? mimeType : undefined;
  if (typeof data === 'string') source = { kind: 'base64', data };
  else if (data instanceof Uint8Array)
    source = { kind: 'base64', data: Buffer.from(data).toString('base64') };
  else if (typeof link === 'string') {
    // A data: URL is inline data (ADR-0330): kept as base64, so it is stored and read back as an image.
    const inline = inlineMediaData({ kind: 'url', url: link });
    source = inline ? { kind: 'base64', data: inline.data } : { kind: 'url', url: link };
    declared ??= inline?.mediaType;
  } else return undefined;
  const mediaType = declared ?? (image ? 'image/png' : 'application/octet-stream');
  if (image || mediaType.startsWith('image/')) return { type: 'image', mediaType, source };
  const filename = (metadata as { filename?: unknown; name?: unknown } | undefined)?.filename;
  return {
    type: 'document',
    mediaType,
    source,
    ...(typeof filename === 'string' ? { title: filename } : {}),
  };
}

function textParts(message: BaseMessage): ContentPart[] {
  const text = message.text;
  return text === '' ? [] : [{ type: 'text', text }];
}

export { messagesToEvents };

/**
 * A rendered request in the portable AI SDK profile (user first, no system message inside the
 * conversation, each result right after its call) → LangChain messages for the model call.
 */
export function requestToBaseMessages(request: AiSdkRequest): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'user') {
      messages.push(
        new HumanMessage({
          content: message.content.map((part) =>
            part.type === 'text'
              ? { type: 'text' as const, text: part.text }
              : part.type === 'image'
                ? { type: 'image_url' as const, image_url: { url: imageUrl(part.image, part.mediaType) } }
                : { type: 'text' as const, text: `[${part.filename ?? part.mediaType} attached]` },
          ),
        }),
      );
    } else if (message.role === 'assistant') {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      const calls = message.content.flatMap((part) =>
        part.type === 'tool-call'
          ? [
              {
                id: part.toolCallId,
                name: part.toolName,
                args: part.input as Record<string, unknown>,
                type: 'tool_call' as const,
              },
            ]
          : [],
      );
      messages.push(new AIMessage({ content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }));
    } else {
      for (const result of message.content) {
        const failed = result.output.type === 'error-text' || result.output.type === 'error-json';
        const value = result.output.value;
        messages.push(
          new ToolMessage({
            content:
              result.output.type === 'content'
                ? contentOutputBlocks(result.output.value)
                : typeof value === 'string'
                  ? value
                  : JSON.stringify(value),
            tool_call_id: result.toolCallId,
            name: result.toolName,
            ...(failed ? { status: 'error' as const } : {}),
          }),
        );
      }
    }
  }
  return messages;
}

function imageUrl(image: string, mediaType: string): string {
  return /^https?:\/\//.test(image) ? image : `data:${mediaType};base64,${image}`;
}

/**
 * An AI SDK `content` tool output (a result with images or documents, ADR-0311) as LangChain
 * standard content blocks: the text, then each medium as an image or file block (never base64 text).
 */
function contentOutputBlocks(items: readonly unknown[]): ContentBlock.Standard[] {
  return items.flatMap((item): ContentBlock.Standard[] => {
    const { type, text, data, url, mediaType, filename } = item as Record<string, unknown>;
    const mimeType = typeof mediaType === 'string' ? mediaType : undefined;
    if (type === 'text' && typeof text === 'string') return [{ type: 'text', text }];
    if ((type === 'image-data' || type === 'media') && typeof data === 'string')
      return [{ type: 'image', data, mimeType: mimeType ?? 'image/png' }];
    if (type === 'image-url' && typeof url === 'string') return [{ type: 'image', url }];
    const metadata = typeof filename === 'string' ? { metadata: { filename } } : {};
    if (type === 'file-data' && typeof data === 'string')
      return [{ type: 'file', data, mimeType: mimeType ?? 'application/octet-stream', ...metadata }];
    if (type === 'file-url' && typeof url === 'string')
      return [{ type: 'file', url, ...(mimeType ? { mimeType } : {}), ...metadata }];
    return [];
  });
}
