import { type ContentPart, type Message, stableMessageId } from '@compactor/core';
import type { OpenAIResponsesItem } from '@compactor/render';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { documentFromFile, imageFromUrl, parseArguments } from './media.js';

/** A Responses API input item as the SDK types it, or as render emits it. */
export type ResponsesItem = ResponseInputItem | OpenAIResponsesItem;

/**
 * OpenAI Responses API `input` items → Compactor messages, with stable ids (ADR-0084).
 * - A `message` item of role `user` becomes a user message; `system`/`developer` ones become
 *   `system` messages (the request's `instructions` are the agent's prompt: pass them to `prepare`).
 * - Consecutive assistant-side items (an assistant `message`'s `output_text` parts, then its
 *   `function_call`s) become one assistant message, as render splits it; arguments are parsed as
 *   JSON (kept as the string when they do not parse).
 * - Consecutive `function_call_output` items become one tool message of results, each in a tool
 *   envelope named after its call (`unknown_tool` when the call is not in the input); an output's
 *   `input_image` / `input_file` items become the result's media (ADR-0311).
 * - Reasoning and compaction items carrying `encrypted_content` (OpenAI's own state, ADR-0250)
 *   become opaque parts of the assistant message, holding the item itself: sent back verbatim and in
 *   place to the Responses API only. A reasoning item opens the assistant message its text joins.
 * - Other items (reasoning without encrypted content, built-in tool calls, item references) are not kept.
 *
 * @param items - The `input` of a Responses request (a string input is one user message).
 * @returns Our messages, in order.
 */
export function responsesItemsToMessages(items: string | readonly ResponsesItem[]): Message[] {
  const list: readonly ResponsesItem[] =
    typeof items === 'string' ? [{ role: 'user', content: items }] : items;
  const converted: Message[] = [];
  const toolNames = new Map<string, string>();
  let role: Message['role'] | null = null;
  let content: ContentPart[] = [];
  const flush = () => {
    if (role !== null && content.length > 0)
      converted.push({ id: stableMessageId(converted.length, { role, content }), role, content });
    role = null;
    content = [];
  };
  const into = (next: Message['role'], parts: ContentPart[]) => {
    // User and system messages are one item each; assistant and tool items accumulate.
    if (role !== next || next === 'user' || next === 'system') flush();
    role = next;
    content.push(...parts);
  };
  for (const item of list) {
    if (isEncryptedItem(item)) {
      into('assistant', [
        { type: 'opaque', provider: 'openai-responses', payload: item as unknown as Record<string, unknown> },
      ]);
    } else if (item.type === 'function_call') {
      toolNames.set(item.call_id, item.name);
      into('assistant', [
        { type: 'tool_call', id: item.call_id, name: item.name, input: parseArguments(item.arguments) },
      ]);
    } else if (item.type === 'function_call_output') {
      // An output's images and files are the result's media (ADR-0311), not lost.
      const media =
        typeof item.output === 'string'
          ? []
          : messageParts(item.output).filter(
              (part): part is Extract<ContentPart, { type: 'image' | 'document' }> =>
                part.type === 'image' || part.type === 'document',
            );
      into('tool', [
        {
          type: 'tool_result',
          toolCallId: item.call_id,
          toolName: toolNames.get(item.call_id) ?? 'unknown_tool',
          outcome: 'success',
          content: outputText(item.output),
          keyFields: {},
          ...(media.length > 0 ? { media } : {}),
        },
      ]);
    } else if ((item.type === undefined || item.type === 'message') && 'role' in item) {
      if (item.role === 'assistant') {
        // A new assistant message starts at its text (render emits the text before the calls), unless
        // all it holds so far is the provider's items that precede this text.
        if (!(role === 'assistant' && content.every((part) => part.type === 'opaque'))) flush();
        into('assistant', messageParts(item.content));
      } else {
        into(item.role === 'user' ? 'user' : 'system', messageParts(item.content));
      }
    }
  }
  flush();
  return converted;
}

interface Part {
  type: string;
  text?: string;
  image_url?: string | null;
  file_data?: string | null;
  filename?: string | null;
}

function messageParts(content: string | readonly Part[]): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part): ContentPart[] => {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return part.text ? [{ type: 'text', text: part.text }] : [];
      case 'input_image':
        return typeof part.image_url === 'string' ? [imageFromUrl(part.image_url)] : [];
      case 'input_file':
        return typeof part.file_data === 'string'
          ? [documentFromFile(part.file_data, part.filename ?? undefined)]
          : [];
      default:
        return [];
    }
  });
}

function outputText(output: string | readonly Part[]): string {
  if (typeof output === 'string') return output;
  return output.flatMap((part) => (part.type === 'input_text' && part.text ? [part.text] : [])).join('\n');
}

/** A reasoning or compaction item with the encrypted content a stateless request needs back (ADR-0250). */
function isEncryptedItem(item: ResponsesItem): boolean {
  if (item.type !== 'reasoning' && item.type !== 'compaction') return false;
  const encrypted = (item as { encrypted_content?: unknown }).encrypted_content;
  return typeof encrypted === 'string' && encrypted !== '';
}
