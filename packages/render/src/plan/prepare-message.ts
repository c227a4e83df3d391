import {
  type ContentPart,
  inlineMediaData,
  type Message,
  type ThreadMessage,
  type ToolResultPart,
} from '@compactor/core';
import { isPlainObject, type ProviderFormat } from '../providers/provider-format.js';
import {
  EMPTY_RESULT_TEXT,
  mediaReferenceText,
  resultMediaFollowText,
  systemNoteText,
} from '../synthetic-text.js';
import type { ToolExchange } from './tool-exchanges.js';

/**
 * Adapt one user, assistant or system message from the log to what the provider accepts, still in
 * core shape (this is also what gets counted). Returns null when nothing sendable is left.
 *
 * - text parts that are empty or whitespace are dropped (Anthropic rejects them);
 * - reasoning is kept only where the format says so (Anthropic signed thinking), and first;
 * - an opaque part is kept, verbatim and in place, for its own provider only (ADR-0250); a block
 *   that opens the conversation (Anthropic's `compaction`) drops what precedes it in the message;
 * - media the provider cannot take inline (artifact-held, unsupported types, any media in an
 *   assistant message) become a short text reference, never base64 as text;
 * - tool call ids become their provider ids and inputs are always JSON objects;
 * - system messages become a `[System Message]` user note where the format has no system role inside
 *   the conversation.
 */
export function prepareMessage(
  message: ThreadMessage,
  calls: readonly ToolExchange[] | undefined,
  format: ProviderFormat,
): Message | null {
  if (message.role === 'system') return prepareSystem(message, format);
  let reasoning: ContentPart[] = [];
  let rest: ContentPart[] = [];
  // Once a provider's compaction block opens the conversation, what follows it stays in place (ADR-0250).
  let opened = false;
  let callIndex = 0;
  for (const part of message.content) {
    switch (part.type) {
      case 'opaque':
        // Sent verbatim and in place to its own provider only; every other format leaves it out (ADR-0250).
        if (part.provider !== format.provider) break;
        if (format.opensConversation?.(part.payload) === true) {
          // The block stands for everything before it, in this message too.
          reasoning = [];
          rest = [];
          opened = true;
        }
        rest.push(part);
        break;
      case 'text':
        if (part.text.trim() !== '') rest.push(part);
        break;
      case 'reasoning':
        // A redacted block's data travels (and is counted) in place of its text.
        if (format.keepReasoning(part))
          (opened ? rest : reasoning).push(
            part.redacted === true ? { ...part, text: part.signature ?? '' } : part,
          );
        break;
      case 'tool_call': {
        const exchange = calls?.[callIndex];
        callIndex += 1;
        rest.push({
          type: 'tool_call',
          id: exchange?.providerId ?? part.id,
          name: part.name,
          input: toolInput(part.input),
        });
        break;
      }
      case 'image':
      case 'document':
        if (message.role === 'user' && format.canSendMedia(part)) {
          rest.push(
            part.type === 'document' && !part.title && format.defaultDocumentTitle
              ? { ...part, title: format.defaultDocumentTitle }
              : part,
          );
        } else
          rest.push({ type: 'text', text: mediaReferenceText(part.type, part.mediaType, mediaWhere(part)) });
        break;
      case 'tool_result':
        // Results travel with their call (see prepareResult); a non-tool message never holds one.
        break;
    }
  }
  const content = reasoning.length > 0 ? [...reasoning, ...rest] : rest;
  if (rest.length === 0) return null;
  return { id: message.id, role: message.role, content };
}

function prepareSystem(message: ThreadMessage, format: ProviderFormat): Message | null {
  const texts = message.content.filter(
    (part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text' && part.text.trim() !== '',
  );
  if (texts.length === 0) return null;
  if (format.systemRoleInConversation) return { id: message.id, role: 'system', content: texts };
  return {
    id: message.id,
    role: 'user',
    content: [{ type: 'text', text: systemNoteText(texts.map((part) => part.text).join('\n\n')) }],
  };
}

/**
 * A result as sent: provider call id, and never empty content. With `format`, the result is sent as
 * logged and keeps its media (ADR-0311): those the provider takes stay, the others become a text
 * reference after the content. Without it (a placeholder, pointer or cut stands in for the content),
 * the media go with the content they came with.
 */
export function prepareResult(
  part: ToolResultPart,
  providerId: string,
  content: ToolResultPart['content'],
  format?: ProviderFormat,
): Message {
  const { media, ...rest } = part;
  let sent = typeof content === 'string' && content.trim() === '' ? EMPTY_RESULT_TEXT : content;
  const kept: NonNullable<ToolResultPart['media']> = [];
  if (format && media && media.length > 0) {
    const references: string[] = [];
    for (const item of media) {
      if (format.canSendMedia(item)) {
        kept.push(
          item.type === 'document' && !item.title && format.defaultDocumentTitle
            ? { ...item, title: format.defaultDocumentTitle }
            : item,
        );
      } else references.push(mediaReferenceText(item.type, item.mediaType, mediaWhere(item)));
    }
    // Where a result cannot hold them, the media follow in a user message; the result says so (counted here).
    if (kept.length > 0 && format.formatResultMedia) references.push(resultMediaFollowText(kept.length));
    if (references.length > 0) {
      const text = typeof sent === 'string' ? sent : JSON.stringify(sent);
      sent = [text, ...references].join('\n');
    }
  }
  return {
    id: providerId,
    role: 'tool',
    content: [
      { ...rest, toolCallId: providerId, content: sent, ...(kept.length > 0 ? { media: kept } : {}) },
    ],
  };
}

function toolInput(input: unknown): Record<string, unknown> {
  if (isPlainObject(input)) return input;
  if (input === undefined || input === null) return {};
  return { value: input };
}

function mediaWhere(part: Extract<ContentPart, { type: 'image' | 'document' }>): string {
  switch (part.source.kind) {
    case 'artifact':
      return `artifact:${part.source.artifactId}`;
    case 'url':
      // A data: URL is inline data (ADR-0333): its base64 is never written as text.
      return inlineMediaData(part.source) ? inlineNotSent(part) : part.source.url;
    case 'base64':
      return inlineNotSent(part);
  }
}

function inlineNotSent(part: Extract<ContentPart, { type: 'image' | 'document' }>): string {
  return part.type === 'document' && part.title ? part.title : 'inline data not sent';
}
