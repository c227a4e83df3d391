/**
 * Convert → render → convert loses nothing OpenAI accepts: a rendered Chat Completions or
 * Responses request converted back to messages and rendered again is the same request, for random
 * threads (tool calls, batched results, images, documents, system notes), with the same ids when
 * converted twice.
 */
import { foldThread, type StoredEvent, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { rethread } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import fc from 'fast-check';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { chatMessagesToMessages, responsesItemsToMessages } from '../src/index.js';

const tokenizer = createTokenizer({ model: 'gpt-4o' });
const budget = tokenBudget({ maxInputTokens: 10_000_000 });

function renderer<P extends 'openai-chat' | 'openai-responses'>(provider: P) {
  return (log: StoredEvent[]) =>
    renderPromptSync({
      thread: foldThread(log),
      plan: null,
      system: 'You are a careful agent.',
      tools: [],
      budget,
      provider,
      tokenizer,
    }).request;
}

describe('OpenAI Chat Completions messages round trip', () => {
  it('render → convert → render gives the same request, with stable ids', () => {
    const render = renderer('openai-chat');
    fc.assert(
      fc.property(arbitraryThread({ maxTurns: 4, subagentMessages: false }), ({ events }) => {
        const first = render(events);
        const converted = chatMessagesToMessages(first.messages);
        expect(render(rethread(events, converted)).messages).toEqual(first.messages);
        expect(chatMessagesToMessages(first.messages).map((message) => message.id)).toEqual(
          converted.map((message) => message.id),
        );
      }),
      { numRuns: 80 },
    );
  }, 60_000);
});

describe('OpenAI Responses input items round trip', () => {
  it('render → convert → render gives the same request, with stable ids', () => {
    const render = renderer('openai-responses');
    fc.assert(
      fc.property(arbitraryThread({ maxTurns: 4, subagentMessages: false }), ({ events }) => {
        const first = render(events);
        const converted = responsesItemsToMessages(first.input);
        expect(render(rethread(events, converted)).input).toEqual(first.input);
        expect(responsesItemsToMessages(first.input).map((message) => message.id)).toEqual(
          converted.map((message) => message.id),
        );
      }),
      { numRuns: 80 },
    );
  }, 60_000);
});

describe('SDK-typed Responses input', () => {
  it('converts the SDK’s own item shapes (easy messages, output messages, calls and outputs) and renders them back', () => {
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'What is the weather in Oslo?' },
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Let me look.', annotations: [] }],
      },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '4 °C, light rain' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
    ];
    const messages = responsesItemsToMessages(input);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]!.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'call_1', name: 'weather', input: { city: 'Oslo' } },
    ]);
    expect(messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        toolCallId: 'call_1',
        toolName: 'weather',
        outcome: 'success',
        content: '4 °C, light rain',
        keyFields: {},
      },
    ]);
    const events: StoredEvent[] = [
      {
        eventId: 'created',
        tenantId: 't',
        threadId: 'r',
        seq: 1,
        timestamp: '2025-01-01T00:00:00.000Z',
        type: 'thread.created',
        model: 'gpt-4o',
        contextWindow: 128_000,
      },
    ];
    const rendered = renderer('openai-responses')(rethread(events, messages)).input;
    expect(rendered).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'What is the weather in Oslo?' }],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '4 °C, light rain' },
    ]);
  });

  it("keeps a function_call_output's image as the result's media, and renders it back after the results (ADR-0311)", () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Take a screenshot.' },
      { type: 'function_call', call_id: 'call_1', name: 'screenshot', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: 'Captured.' },
          { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
        ],
      },
    ];
    const messages = responsesItemsToMessages(input);
    const result = messages[2]!.content[0]!;
    expect(result.type === 'tool_result' && result.content).toBe('Captured.');
    expect(result.type === 'tool_result' && result.media).toEqual([
      { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: png } },
    ]);
    const events: StoredEvent[] = [
      {
        eventId: 'created',
        tenantId: 't',
        threadId: 's',
        seq: 1,
        timestamp: '2025-01-01T00:00:00.000Z',
        type: 'thread.created',
        model: 'gpt-4o',
        contextWindow: 128_000,
      },
    ];
    const rendered = renderer('openai-responses')(rethread(events, messages)).input;
    expect(rendered.at(-1)).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' }],
    });
  });
});
