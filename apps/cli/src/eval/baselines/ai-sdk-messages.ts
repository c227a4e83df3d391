import type { ContentPart, ThreadMessage } from '@compactor/core';
import type { JSONValue, ModelMessage } from 'ai';

/** Provider options namespace that carries our message id through `pruneMessages` (it spreads messages). */
const ID_NAMESPACE = 'compactor';

function mediaMarker(part: ContentPart): string {
  return part.type === 'image' || part.type === 'document' ? `[${part.type} ${part.mediaType}]` : '';
}

function textOf(parts: readonly ContentPart[]): string {
  return parts
    .map((part) => (part.type === 'text' ? part.text : mediaMarker(part)))
    .filter((text) => text !== '')
    .join('\n');
}

/** A thread message as an AI SDK ModelMessage, its id in `providerOptions.compactor.messageId`. */
export function toModelMessage(message: ThreadMessage): ModelMessage {
  const providerOptions = { [ID_NAMESPACE]: { messageId: message.id } };
  switch (message.role) {
    case 'system':
      return { role: 'system', content: textOf(message.content), providerOptions };
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: textOf(message.content) }], providerOptions };
    case 'assistant':
      return {
        role: 'assistant',
        providerOptions,
        // A provider's opaque part has no AI SDK form (ADR-0250): the baseline sends it no more than render does.
        content: message.content.flatMap((part) => {
          if (part.type === 'opaque') return [];
          if (part.type === 'reasoning') return { type: 'reasoning' as const, text: part.text };
          if (part.type === 'tool_call') {
            return {
              type: 'tool-call' as const,
              toolCallId: part.id,
              toolName: part.name,
              input: part.input,
            };
          }
          return { type: 'text' as const, text: part.type === 'text' ? part.text : mediaMarker(part) };
        }),
      };
    case 'tool':
      return {
        role: 'tool',
        providerOptions,
        content: message.content.flatMap((part) =>
          part.type === 'tool_result'
            ? [
                {
                  type: 'tool-result' as const,
                  toolCallId: part.toolCallId,
                  toolName: part.toolName,
                  output:
                    typeof part.content === 'string'
                      ? { type: 'text' as const, value: part.content }
                      : { type: 'json' as const, value: part.content as JSONValue },
                },
              ]
            : [],
        ),
      };
  }
}

export function messageIdOf(message: ModelMessage): string | undefined {
  const value = message.providerOptions?.[ID_NAMESPACE]?.messageId;
  return typeof value === 'string' ? value : undefined;
}

/** What of one thread message survived pruning: its parts, and whether all but reasoning are intact. */
export interface SurvivingMessage {
  message: ThreadMessage;
  verbatim: boolean;
}

/**
 * Map a pruned ModelMessage back onto the thread message it came from: `pruneMessages` only
 * removes reasoning, tool-call and tool-result parts, so the others survive as they were.
 */
export function survivingParts(original: ThreadMessage, pruned: ModelMessage): SurvivingMessage | undefined {
  const parts = typeof pruned.content === 'string' ? [] : pruned.content;
  const callIds = new Set<string>();
  let reasoning = false;
  for (const part of parts) {
    if (part.type === 'tool-call' || part.type === 'tool-result') callIds.add(part.toolCallId);
    else if (part.type === 'reasoning') reasoning = true;
  }
  const content = original.content.filter((part) => {
    if (part.type === 'reasoning') return reasoning;
    if (part.type === 'opaque') return false;
    if (part.type === 'tool_call') return callIds.has(part.id);
    if (part.type === 'tool_result') return callIds.has(part.toolCallId);
    return true;
  });
  if (content.length === 0) return undefined;
  const lost = original.content.some(
    (part) => part.type !== 'reasoning' && part.type !== 'opaque' && !content.includes(part),
  );
  return { message: { ...original, content }, verbatim: !lost };
}
