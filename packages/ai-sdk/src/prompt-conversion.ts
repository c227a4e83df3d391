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
    case 'tool-result':
      return {
        type: 'tool_result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        ...resultOf(part.output),
        keyFields: {},
      };
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

function resultOf(output: LanguageModelV3ToolResultOutput): {
  outcome: 'success' | 'failure';
  content: string | Record<string, unknown>;
} {
  switch (output.type) {
    case 'text':
      return { outcome: 'success', content: output.value };
    case 'error-text':
      return { outcome: 'failure', content: output.value };
    case 'json':
    case 'error-json': {
      const value = output.value;
      const content =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? (value as Record<string, unknown>)
          : JSON.stringify(value);
      return { outcome: output.type === 'json' ? 'success' : 'failure', content };
    }
    case 'execution-denied':
      return { outcome: 'failure', content: output.reason ?? 'The tool call was denied.' };
    default:
      return { outcome: 'success', content: JSON.stringify(output.value) };
  }
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
