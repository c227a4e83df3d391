import type {
  LanguageModelV3FilePart,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import { type ContentPart, type Message, messagesToEvents } from '@compactor/core';
import type { AiSdkFilePart, AiSdkRequest } from '@compactor/render';
import { stableMessageId } from './stable-ids.js';

/** An agent's conversation as Compactor sees it: the system prompt apart, the rest as messages. */
export interface ConvertedConversation {
  system: string;
  messages: Message[];
}

/** The model-level prompt of an AI SDK call (what a middleware's `transformParams` sees) → messages. */
export function promptToMessages(prompt: LanguageModelV3Prompt): ConvertedConversation {
  const systems: string[] = [];
  const messages: Message[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      systems.push(message.content);
      continue;
    }
    const content: ContentPart[] = [];
    for (const part of message.content) {
      const converted = partToContent(part);
      if (converted) content.push(converted);
    }
    if (content.length === 0) continue;
    const role = message.role;
    messages.push({ id: stableMessageId(messages.length, { role, content }), role, content });
  }
  return { system: systems.join('\n\n'), messages };
}

type PromptPart = Exclude<LanguageModelV3Prompt[number], { role: 'system' }>['content'][number];

function partToContent(part: PromptPart): ContentPart | null {
  switch (part.type) {
    case 'text':
      return part.text === '' ? null : { type: 'text', text: part.text };
    case 'tool-call':
      return { type: 'tool_call', id: part.toolCallId, name: part.toolName, input: parsedInput(part.input) };
    case 'tool-result': {
      const { media, ...result } = resultOf(part.output);
      return {
        type: 'tool_result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        ...result,
        keyFields: {},
        ...(media.length > 0 ? { media } : {}),
      };
    }
    case 'file':
      return fileToContent(part);
    default:
      // Reasoning carries provider-specific signatures the portable AI SDK format cannot resend;
      // tool approvals are the SDK's own bookkeeping.
      return null;
  }
}

/** Model responses carry tool inputs as JSON text; prompts carry them parsed. One form in the log. */
function parsedInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

type ResultMedia = NonNullable<Extract<ContentPart, { type: 'tool_result' }>['media']>;

function resultOf(output: LanguageModelV3ToolResultOutput): {
  outcome: 'success' | 'failure';
  content: string | Record<string, unknown>;
  media: ResultMedia;
} {
  switch (output.type) {
    case 'text':
      return { outcome: 'success', content: output.value, media: [] };
    case 'error-text':
      return { outcome: 'failure', content: output.value, media: [] };
    case 'json':
    case 'error-json': {
      const value = output.value;
      const content =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? (value as Record<string, unknown>)
          : JSON.stringify(value);
      return { outcome: output.type === 'json' ? 'success' : 'failure', content, media: [] };
    }
    case 'execution-denied':
      return { outcome: 'failure', content: output.reason ?? 'The tool call was denied.', media: [] };
    default:
      return { outcome: 'success', ...contentOutput(output.value) };
  }
}

/**
 * A `content` tool output (text and media items) → the result's text and its images and documents
 * (ADR-0311), instead of base64 as JSON text. Items of other kinds stay as JSON text.
 *
 * @param items - The output's items.
 * @returns The text (items joined by newlines) and the media, in order.
 */
export function contentOutput(items: readonly unknown[]): { content: string; media: ResultMedia } {
  const texts: string[] = [];
  const media: ResultMedia = [];
  for (const item of items) {
    const medium = contentItemMedium(item);
    if (medium) media.push(medium);
    else if (isTextItem(item)) texts.push(item.text);
    else texts.push(JSON.stringify(item));
  }
  return { content: texts.join('\n'), media };
}

function isTextItem(item: unknown): item is { type: 'text'; text: string } {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'text';
}

function contentItemMedium(item: unknown): ResultMedia[number] | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { type, data, url, mediaType, filename } = item as Record<string, unknown>;
  const asMedium = (source: ResultMedia[number]['source'], type: string): ResultMedia[number] | undefined => {
    if (type.startsWith('image/')) return { type: 'image', mediaType: type, source };
    return {
      type: 'document',
      mediaType: type,
      source,
      ...(typeof filename === 'string' ? { title: filename } : {}),
    };
  };
  const declared = typeof mediaType === 'string' ? mediaType : undefined;
  if ((type === 'media' || type === 'image-data' || type === 'file-data') && typeof data === 'string') {
    return asMedium(
      { kind: 'base64', data },
      declared ?? (type === 'image-data' ? 'image/png' : 'application/octet-stream'),
    );
  }
  if ((type === 'image-url' || type === 'file-url') && typeof url === 'string') {
    return asMedium(
      { kind: 'url', url },
      declared ?? (type === 'image-url' ? 'image/png' : 'application/octet-stream'),
    );
  }
  return undefined;
}

function fileToContent(part: LanguageModelV3FilePart): ContentPart | null {
  const source =
    part.data instanceof URL
      ? { kind: 'url' as const, url: part.data.href }
      : typeof part.data === 'string'
        ? { kind: 'base64' as const, data: part.data }
        : { kind: 'base64' as const, data: Buffer.from(part.data).toString('base64') };
  if (part.mediaType.startsWith('image/')) return { type: 'image', mediaType: part.mediaType, source };
  return {
    type: 'document',
    mediaType: part.mediaType,
    source,
    ...(part.filename ? { title: part.filename } : {}),
  };
}

export { messagesToEvents };

/** A rendered AI SDK request → the model-level prompt the middleware hands on. */
export function requestToPrompt(request: AiSdkRequest): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (request.system) prompt.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    if (message.role === 'tool') prompt.push({ role: 'tool', content: message.content });
    else if (message.role === 'user') {
      prompt.push({
        role: 'user',
        content: message.content.map((part) =>
          part.type === 'image'
            ? { type: 'file', data: dataOf(part.image), mediaType: part.mediaType }
            : part.type === 'file'
              ? fileOf(part)
              : part,
        ),
      });
    } else {
      prompt.push({
        role: 'assistant',
        content: message.content.map((part) => (part.type === 'file' ? fileOf(part) : part)),
      });
    }
  }
  return prompt;
}

function fileOf(part: AiSdkFilePart): LanguageModelV3FilePart {
  return {
    type: 'file',
    data: dataOf(part.data),
    mediaType: part.mediaType,
    ...(part.filename ? { filename: part.filename } : {}),
  };
}

/** URLs travel as URL objects at the model level; anything else is base64. */
function dataOf(value: string): string | URL {
  return /^https?:\/\//.test(value) ? new URL(value) : value;
}
