import { type EventInput, foldThread, type Message, type StoredEvent, type Thread } from '@compactor/core';

const TOPICS = ['parser', 'cache', 'router', 'scheduler', 'renderer', 'importer', 'queue', 'store'];

/** A coding-agent exchange: user asks, assistant calls a tool, the tool answers, assistant replies. */
function exchange(index: number): Message[] {
  const topic = TOPICS[index % TOPICS.length]!;
  const file = `src/${topic}/${topic}-${index % 37}.ts`;
  const callId = `call_${index}`;
  const listing = Array.from(
    { length: 12 },
    (_, line) =>
      `${line + 1}: export function ${topic}Step${line}(input: number) { return input * ${index + line}; }`,
  ).join('\n');
  return [
    {
      id: `m${index}-user`,
      role: 'user',
      content: [
        {
          type: 'text',
          text: `Step ${index}: look at ${file} and fix the ${topic} bug near line ${index % 50}.`,
        },
      ],
    },
    {
      id: `m${index}-call`,
      role: 'assistant',
      content: [{ type: 'tool_call', id: callId, name: 'read', input: { path: file } }],
    },
    {
      id: `m${index}-result`,
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolName: 'read',
          toolCallId: callId,
          outcome: 'success',
          content: listing,
          keyFields: { path: file },
        },
      ],
    },
    {
      id: `m${index}-reply`,
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: `The ${topic} in ${file} multiplied by the wrong factor; step ${index} now uses ${index + 1}.`,
        },
      ],
    },
  ];
}

/** About `messages` synthetic messages (whole exchanges), used when the corpus is absent. */
export function syntheticMessages(messages: number): Message[] {
  return Array.from({ length: Math.ceil(messages / 4) }, (_, index) => exchange(index)).flat();
}

/** A synthetic coding thread of about `messages` messages for a model with `contextWindow` tokens. */
export function syntheticThread(messages: number, contextWindow: number): Thread {
  const inputs: EventInput[] = [
    { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow },
    ...syntheticMessages(messages).map(
      (message): EventInput => ({ eventId: `e-${message.id}`, type: 'message.appended', message }),
    ),
  ];
  const events = inputs.map(
    (input, index) =>
      ({
        ...input,
        tenantId: 'bench',
        threadId: 'synthetic',
        seq: index + 1,
        timestamp: new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString(),
      }) as StoredEvent,
  );
  return foldThread(events);
}
