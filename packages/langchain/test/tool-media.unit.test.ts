/**
 * Tool-result media through LangChain (ADR-0332): a ToolMessage's image and file blocks become the
 * result's media (a data: URL as inline data), and a rendered result with media goes back to the
 * model as standard content blocks, never as base64 text; converted back, the media are the same.
 */
import { foldThread, type Message, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import fc from 'fast-check';
import { AIMessage, HumanMessage, ToolMessage } from 'langchain';
import { describe, expect, it } from 'vitest';
import { baseMessagesToMessages, requestToBaseMessages } from '../src/message-conversion.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });

function render(thread: ReturnType<typeof foldThread>) {
  return renderPromptSync({
    thread,
    plan: null,
    system: 'system',
    tools: [],
    budget: tokenBudget({ maxInputTokens: 10_000_000 }),
    provider: 'ai-sdk',
    tokenizer,
  }).request;
}

function resultsOf(messages: readonly Message[]) {
  return messages.flatMap((message) => message.content.filter((part) => part.type === 'tool_result'));
}

describe('LangChain tool messages carry images (ADR-0332)', () => {
  it("keeps a ToolMessage's image and file blocks as the result's media, in every block form", () => {
    const messages = baseMessagesToMessages([
      new HumanMessage('Take a screenshot.'),
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'c1', name: 'screenshot', args: {}, type: 'tool_call' },
          { id: 'c2', name: 'screenshot', args: {}, type: 'tool_call' },
          { id: 'c3', name: 'fetch_pdf', args: {}, type: 'tool_call' },
        ],
      }),
      new ToolMessage({
        tool_call_id: 'c1',
        content: [
          { type: 'text', text: 'Captured.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      }),
      new ToolMessage({
        tool_call_id: 'c2',
        content: [
          { type: 'text', text: 'Captured by URL.' },
          { type: 'image', url: 'https://example.com/shot.png' },
        ],
      }),
      new ToolMessage({
        tool_call_id: 'c3',
        content: [
          { type: 'text', text: 'Fetched.' },
          { type: 'file', data: PNG, mimeType: 'application/pdf', metadata: { filename: 'report.pdf' } },
        ],
      }),
    ]);
    const results = resultsOf(messages);
    expect(results.map((result) => [result.content, result.media])).toEqual([
      ['Captured.', [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: PNG } }]],
      [
        'Captured by URL.',
        [
          {
            type: 'image',
            mediaType: 'image/png',
            source: { kind: 'url', url: 'https://example.com/shot.png' },
          },
        ],
      ],
      [
        'Fetched.',
        [
          {
            type: 'document',
            mediaType: 'application/pdf',
            source: { kind: 'base64', data: PNG },
            title: 'report.pdf',
          },
        ],
      ],
    ]);
    // A text-only tool message is unchanged (no media field, so its id is the one it had).
    const [plain] = resultsOf(
      baseMessagesToMessages([
        new AIMessage({ content: '', tool_calls: [{ id: 'c9', name: 'ls', args: {}, type: 'tool_call' }] }),
        new ToolMessage({ tool_call_id: 'c9', content: 'a.txt' }),
      ]),
    );
    expect(plain).not.toHaveProperty('media');
  });

  it("keeps a user message's image blocks as its media, after its text", () => {
    const [message] = baseMessagesToMessages([
      new HumanMessage({
        content: [
          { type: 'text', text: 'My desk.' },
          { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${PNG}` } },
        ],
      }),
    ]);
    expect(message!.content).toEqual([
      { type: 'text', text: 'My desk.' },
      { type: 'image', mediaType: 'image/jpeg', source: { kind: 'base64', data: PNG } },
    ]);
  });

  it('sends a rendered result with media as standard content blocks, never base64 text', () => {
    const thread = threadBuilder('shots')
      .user('Look at the page.')
      .assistant('Looking.', { toolCalls: [{ id: 's1', name: 'screenshot', input: {} }] })
      .toolResult('s1', 'Page loaded.', {
        media: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: PNG } }],
      })
      .assistant('It shows a chart.')
      .build().thread;
    const base = requestToBaseMessages(render(thread));
    const tool = base.find((message) => ToolMessage.isInstance(message))!;
    expect(tool.content).toEqual([
      { type: 'text', text: 'Page loaded.' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    expect(tool.text).not.toContain(PNG);
  });

  it('render → LangChain → messages keeps every tool result its media, for random threads', () => {
    fc.assert(
      fc.property(arbitraryThread({ maxTurns: 4, subagentMessages: false }), ({ events }) => {
        const thread = foldThread(events);
        const back = baseMessagesToMessages(requestToBaseMessages(render(thread)));
        const sent = resultsOf(thread.messages).map((result) => result.media ?? []);
        const received = resultsOf(back).map((result) => result.media ?? []);
        expect(received).toEqual(sent);
        for (const message of requestToBaseMessages(render(thread))) {
          for (const medium of sent.flat()) {
            if (medium.source.kind === 'base64') expect(message.text).not.toContain(medium.source.data);
          }
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
