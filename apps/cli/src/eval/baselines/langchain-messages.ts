import type { ContentPart, ThreadMessage } from '@compactor/core';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';

/** Text of the parts LangChain carries as plain content (media become a short marker). */
function plainText(parts: readonly ContentPart[]): string {
  const pieces: string[] = [];
  for (const part of parts) {
    if (part.type === 'text') pieces.push(part.text);
    else if (part.type === 'image' || part.type === 'document')
      pieces.push(`[${part.type} ${part.mediaType}]`);
    else if (part.type === 'tool_result') {
      pieces.push(typeof part.content === 'string' ? part.content : JSON.stringify(part.content));
    }
  }
  return pieces.join('\n');
}

/** LangChain tool-call args must be an object; anything else is wrapped. */
function toolArgs(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { input };
}

/**
 * One LangChain message per thread message, carrying the thread message's id (trimMessages keeps
 * ids, so the kept messages map straight back). A tool message answers its first result's call.
 */
export function toLangChainMessage(message: ThreadMessage): BaseMessage {
  const content = plainText(message.content);
  switch (message.role) {
    case 'system':
      return new SystemMessage({ id: message.id, content });
    case 'user':
      return new HumanMessage({ id: message.id, content });
    case 'assistant':
      return new AIMessage({
        id: message.id,
        content,
        tool_calls: message.content.flatMap((part) =>
          part.type === 'tool_call'
            ? [{ id: part.id, name: part.name, args: toolArgs(part.input), type: 'tool_call' as const }]
            : [],
        ),
      });
    case 'tool': {
      const result = message.content.find((part) => part.type === 'tool_result');
      return new ToolMessage({ id: message.id, content, tool_call_id: result?.toolCallId ?? message.id });
    }
  }
}
