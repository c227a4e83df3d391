import type { ContentPart, Message, ToolDefinition } from '@compactor/core';
import type { Compactor, PreparedRequest } from '@compactor/engine';
import type { ModelMessage } from 'ai';
import { contentOutput, messagesToEvents } from './prompt-conversion.js';
import { stableMessageId } from './stable-ids.js';
import { ensureThread, type ThreadOptions } from './thread-setup.js';

export interface CompactionPrepareStepOptions extends ThreadOptions {
  compactor: Compactor;
  threadId: string;
  /** The agent's system prompt and tools, counted toward the budget (prepareStep does not see them). */
  system?: string;
  tools?: readonly ToolDefinition[];
  budget?: number;
  onPrepared?: (prepared: PreparedRequest<'ai-sdk'>) => void;
}

/**
 * A `prepareStep` for `generateText`/`streamText`/`ToolLoopAgent`: appends what the previous steps
 * produced, compacts when due and returns the step's `system` and `messages`, within budget.
 */
export function compactionPrepareStep(options: CompactionPrepareStepOptions) {
  return async ({
    messages,
  }: {
    messages: ModelMessage[];
  }): Promise<{ system?: string; messages: ModelMessage[] }> => {
    await ensureThread(options.compactor, options.threadId, options);
    const converted = modelMessagesToMessages(messages);
    if (converted.length > 0) await options.compactor.append(options.threadId, messagesToEvents(converted));
    const prepared = await options.compactor.prepare(options.threadId, {
      provider: 'ai-sdk',
      system: options.system ?? '',
      tools: options.tools ?? [],
      ...(options.budget !== undefined ? { budget: options.budget } : {}),
    });
    options.onPrepared?.(prepared);
    const { system, messages: compacted } = prepared.request;
    return { ...(system !== undefined ? { system } : {}), messages: compacted };
  };
}

/** AI SDK `ModelMessage`s → messages with stable ids (system messages are the runtime's, not the log's). */
export function modelMessagesToMessages(messages: readonly ModelMessage[]): Message[] {
  const converted: Message[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const content = contentOf(message);
    if (content.length === 0) continue;
    converted.push({
      id: stableMessageId(converted.length, { role: message.role, content }),
      role: message.role,
      content,
    });
  }
  return converted;
}

/** An image or file part → ours; URLs by reference, strings as base64, bytes encoded. */
function mediaPart(
  data: unknown,
  mediaType: string | undefined,
  part: { type: 'image' | 'file'; filename?: string },
): ContentPart | null {
  const source =
    data instanceof URL
      ? { kind: 'url' as const, url: data.href }
      : typeof data === 'string'
        ? /^https?:\/\//.test(data)
          ? { kind: 'url' as const, url: data }
          : { kind: 'base64' as const, data }
        : data instanceof Uint8Array
          ? { kind: 'base64' as const, data: Buffer.from(data).toString('base64') }
          : null;
  if (!source) return null;
  const type = mediaType ?? 'image/png';
  if (type.startsWith('image/')) return { type: 'image', mediaType: type, source };
  return { type: 'document', mediaType: type, source, ...(part.filename ? { title: part.filename } : {}) };
}

function contentOf(message: Exclude<ModelMessage, { role: 'system' }>): ContentPart[] {
  if (typeof message.content === 'string') {
    return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  }
  const parts: ContentPart[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        if (part.text !== '') parts.push({ type: 'text', text: part.text });
        break;
      case 'tool-call':
        parts.push({ type: 'tool_call', id: part.toolCallId, name: part.toolName, input: part.input });
        break;
      case 'tool-result': {
        const output = part.output;
        const failed =
          output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
        // A `content` output's images and documents travel as the result's media (ADR-0311).
        const converted = output.type === 'content' ? contentOutput(output.value) : undefined;
        const value =
          output.type === 'text' || output.type === 'error-text'
            ? output.value
            : output.type === 'json' || output.type === 'error-json'
              ? output.value !== null && typeof output.value === 'object' && !Array.isArray(output.value)
                ? (output.value as Record<string, unknown>)
                : JSON.stringify(output.value)
              : (converted?.content ?? JSON.stringify(output));
        parts.push({
          type: 'tool_result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          outcome: failed ? 'failure' : 'success',
          content: value,
          keyFields: {},
          ...(converted && converted.media.length > 0 ? { media: converted.media } : {}),
        });
        break;
      }
      case 'image':
      case 'file': {
        const media = mediaPart(part.type === 'image' ? part.image : part.data, part.mediaType, part);
        if (media) parts.push(media);
        break;
      }
      default:
        // Reasoning carries provider-specific signatures the portable format cannot resend.
        break;
    }
  }
  return parts;
}
