import { isTurnStart, type Message } from '@compactor/core';

/**
 * The searchable text of a message: its text parts, tool calls (name and input) and tool results, one
 * per line. Reasoning is left out (the model's scratch, often redacted); images and documents
 * contribute nothing (a caption belongs in a text part).
 */
export function messageRecallText(message: Pick<Message, 'content'>): string {
  const lines: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') lines.push(part.text);
    else if (part.type === 'tool_call') lines.push(`${part.name} ${JSON.stringify(part.input ?? {})}`);
    else if (part.type === 'tool_result')
      lines.push(typeof part.content === 'string' ? part.content : JSON.stringify(part.content));
  }
  return lines.filter((line) => line !== '').join('\n');
}

/**
 * The query a render would search with: the newest real user turn's text, plus the newest message's
 * tool calls when the conversation ends on a pending call (the agent is about to act on it).
 */
export function recallQuery(
  messages: readonly Pick<Message, 'role' | 'content' | 'synthetic' | 'subagentId'>[],
): string {
  const parts: string[] = [];
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    for (const part of last.content)
      if (part.type === 'tool_call') parts.push(`${part.name} ${JSON.stringify(part.input ?? {})}`);
  }
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (isTurnStart(message)) {
      parts.unshift(messageRecallText(message));
      break;
    }
  }
  return parts.join('\n');
}
