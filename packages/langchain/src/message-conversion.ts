import { type ContentPart, type Message, messagesToEvents, stableMessageId } from '@compactor/core';
import type { AiSdkRequest } from '@compactor/render';
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
        },
      ],
    };
  }
  if (HumanMessage.isInstance(message)) return { role: 'user', content: textParts(message) };
  return null;
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
            content: typeof value === 'string' ? value : JSON.stringify(value),
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
