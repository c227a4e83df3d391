import {
  type EventInput,
  type EventStore,
  foldThread,
  type Message,
  type StoredEvent,
  type Thread,
} from '@compactor/core';

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

/** How big a large tool result is in the scaling threads (a file read in full, a long test log). */
const LARGE_RESULT_LINES = 200;

/**
 * A coding-agent exchange for the scaling benchmark (issue #18): short messages, and a tool result that
 * is one short line except in every fifth exchange, where it is a large listing (so 5% of the messages
 * are large tool results).
 */
function scalingExchange(index: number): Message[] {
  const topic = TOPICS[index % TOPICS.length]!;
  const file = `src/${topic}/${topic}-${index % 37}.ts`;
  const callId = `call_${index}`;
  const large = index % 5 === 4;
  const output = large
    ? Array.from(
        { length: LARGE_RESULT_LINES },
        (_, line) =>
          `${line + 1}: export const ${topic}${line} = compute(${index}, ${line}); // step ${index}`,
      ).join('\n')
    : `ok: ${file} has ${(index * 7) % 300} lines`;
  return [
    {
      id: `m${index}-user`,
      role: 'user',
      content: [{ type: 'text', text: `Step ${index}: fix ${topic} in ${file}.` }],
    },
    {
      id: `m${index}-call`,
      role: 'assistant',
      content: [{ type: 'tool_call', id: callId, name: large ? 'read' : 'stat', input: { path: file } }],
    },
    {
      id: `m${index}-result`,
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolName: large ? 'read' : 'stat',
          toolCallId: callId,
          outcome: 'success',
          content: output,
          keyFields: { path: file },
        },
      ],
    },
    {
      id: `m${index}-reply`,
      role: 'assistant',
      content: [{ type: 'text', text: `Fixed ${topic} step ${index}.` }],
    },
  ];
}

/**
 * The events of a synthetic coding-agent thread of `messages` messages (rounded up to whole exchanges)
 * for the scaling benchmark: `thread.created` and one `message.appended` per message, as a client sends
 * them.
 *
 * @param messages - About how many messages.
 * @param contextWindow - The model's window.
 * @returns The events, `thread.created` first.
 */
export function scalingThreadEvents(messages: number, contextWindow: number): EventInput[] {
  return [
    { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow },
    ...scalingExchangeEvents(0, Math.ceil(messages / 4)),
  ];
}

/**
 * The `message.appended` events of `count` scaling exchanges from exchange `from` on: what a thread from
 * {@link scalingThreadEvents} of `4 * from` messages receives next.
 */
export function scalingExchangeEvents(from: number, count: number): EventInput[] {
  const inputs: EventInput[] = [];
  for (let index = from; index < from + count; index += 1) {
    for (const message of scalingExchange(index)) {
      inputs.push({ eventId: `e-${message.id}`, type: 'message.appended', message });
    }
  }
  return inputs;
}

/**
 * One more message for a thread from {@link scalingThreadEvents}: a user turn, as a client appends it.
 *
 * @param step - Distinguishes appended messages.
 * @returns The event.
 */
export function scalingAppendEvent(step: number): EventInput {
  return {
    eventId: `late-${step}`,
    type: 'message.appended',
    message: {
      id: `late-${step}`,
      role: 'user',
      content: [{ type: 'text', text: `One more thing, step ${step}.` }],
    },
  };
}

/** Appends a long thread's events a thousand at a time (a batch the stores accept). */
export async function appendInBatches(
  events: EventStore,
  tenantId: string,
  threadId: string,
  inputs: readonly EventInput[],
): Promise<void> {
  for (let start = 0; start < inputs.length; start += 1_000) {
    await events.append(tenantId, threadId, inputs.slice(start, start + 1_000));
  }
}
