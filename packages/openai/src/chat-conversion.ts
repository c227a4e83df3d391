import { type ContentPart, type Message, stableMessageId } from '@compactor/core';
import type { OpenAIChatMessage } from '@compactor/render';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { documentFromFile, imageFromUrl, parseArguments } from './media.js';

/** A Chat Completions message as the SDK types it, or as render emits it. */
export type ChatMessage = ChatCompletionMessageParam | OpenAIChatMessage;

/**
 * OpenAI Chat Completions messages → Compactor messages, with stable ids (position + content hash,
 * ADR-0084) so the history an agent resends on every call is appended once.
 * - The first message, when it is `system` or `developer`, is the agent's prompt, not the log's,
 *   and is skipped (pass it as `system` to `prepare`, which renders it there again); any other
 *   becomes a `system` message.
 * - Consecutive `tool` messages become one tool message of results, each in a tool envelope named
 *   after its call (`unknown_tool` when the call is not in the history).
 * - Assistant text and `tool_calls` (arguments parsed as JSON; kept as the string when they do not
 *   parse) become one assistant message; refusals, audio and the deprecated `function` role are
 *   not kept.
 *
 * @param messages - The `messages` of a Chat Completions request.
 * @returns Our messages, in order.
 */
export function chatMessagesToMessages(messages: readonly ChatMessage[]): Message[] {
  const converted: Message[] = [];
  const toolNames = new Map<string, string>();
  const push = (role: Message['role'], content: ContentPart[]) => {
    if (content.length === 0) return;
    converted.push({ id: stableMessageId(converted.length, { role, content }), role, content });
  };
  let pendingResults: ContentPart[] = [];
  const flushResults = () => {
    push('tool', pendingResults);
    pendingResults = [];
  };
  for (const [index, message] of messages.entries()) {
    if (message.role === 'system' || message.role === 'developer') {
      if (index === 0) continue;
      flushResults();
      push('system', textParts(message.content));
      continue;
    }
    if (message.role === 'tool') {
      pendingResults.push({
        type: 'tool_result',
        toolCallId: message.tool_call_id,
        toolName: toolNames.get(message.tool_call_id) ?? 'unknown_tool',
        outcome: 'success',
        content: textParts(message.content)
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join('\n'),
        keyFields: {},
      });
      continue;
    }
    flushResults();
    if (message.role === 'assistant') {
      const content: ContentPart[] = textParts(message.content ?? null);
      for (const call of message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        toolNames.set(call.id, call.function.name);
        content.push({
          type: 'tool_call',
          id: call.id,
          name: call.function.name,
          input: parseArguments(call.function.arguments),
        });
      }
      push('assistant', content);
    } else if (message.role === 'user') {
      push('user', userParts(message.content));
    }
  }
  flushResults();
  return converted;
}

type TextLike = string | null | ReadonlyArray<{ type: string; text?: string }>;

function textParts(content: TextLike): ContentPart[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part): ContentPart[] =>
    part.type === 'text' && typeof part.text === 'string' && part.text !== ''
      ? [{ type: 'text', text: part.text }]
      : [],
  );
}

type UserContent = Extract<ChatMessage, { role: 'user' }>['content'];

function userParts(content: UserContent): ContentPart[] {
  if (typeof content === 'string') return textParts(content);
  return content.flatMap((part): ContentPart[] => {
    switch (part.type) {
      case 'text':
        return textParts(part.text);
      case 'image_url':
        return [imageFromUrl(part.image_url.url)];
      case 'file':
        // Uploaded files (file_id) have no content here to keep.
        return part.file.file_data === undefined
          ? []
          : [documentFromFile(part.file.file_data, part.file.filename)];
      default:
        return [];
    }
  });
}
