/**
 * `withCompaction(client).messages.stream`: the SDK's own `MessageStream` over testkit's fake
 * Messages API, which streams server-sent events as the API does. Every streamed request is the
 * rendered one; each assistant message assembled from a stream is appended once, complete (text,
 * tool input parsed from its JSON deltas, thinking with its signature) before `finalMessage()`
 * resolves; a stream cut off before `message_stop` appends nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Anthropic } from '@anthropic-ai/sdk';
import { type ContentPart, foldThread } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor, type PreparedRequest } from '@compactor/engine';
import { validateProviderRequest } from '@compactor/render/validate';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { type FakeMessagesApi, startFakeMessagesApi } from '@compactor/testkit/fake-messages-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withCompaction } from '../src/index.js';

const STEPS = 25;
const BUDGET = 6_000;
const TOOLS: Anthropic.Messages.Tool[] = [
  {
    name: 'read_log',
    description: 'Read one service log.',
    input_schema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
  },
];

function answer(content: unknown[], stop: Anthropic.Messages.StopReason) {
  return {
    status: 200,
    body: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  };
}

/** Step `n`'s scripted answer: thinking (signed), text and a tool call, or the final text. */
function scripted(step: number) {
  return step < STEPS
    ? answer(
        [
          {
            type: 'thinking',
            thinking: `Service ${step} is next; its log says whether it is healthy.`,
            signature: `sig-${step}`,
          },
          {
            type: 'text',
            text: `Reading the log of service ${step}, which may take a moment.`,
            citations: null,
          },
          {
            type: 'tool_use',
            id: `toolu_${step}`,
            name: 'read_log',
            input: { service: `svc-${step}`, lines: [1, 2, step] },
          },
        ],
        'tool_use',
      )
    : answer([{ type: 'text', text: 'Every service is healthy.', citations: null }], 'end_turn');
}

describe('withCompaction around messages.stream', () => {
  let fake: FakeMessagesApi;
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    fake = await startFakeMessagesApi();
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-anthropic-stream-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await fake.close();
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('streams every call compacted and appends each assembled answer once, complete', async () => {
    let calls = 0;
    fake.setFallback(() => scripted(++calls));
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const prepared: PreparedRequest<'anthropic'>[] = [];
    const client = withCompaction(anthropic, {
      compactor,
      threadId: 'ops',
      contextWindow: 12_000,
      budget: BUDGET,
      onPrepared: (request) => prepared.push(request),
    });

    const messages: Anthropic.Messages.MessageParam[] = [
      { role: 'user', content: 'Check every service log.' },
    ];
    const streamedText: string[] = [];
    let final: Anthropic.Messages.Message;
    for (;;) {
      const stream = client.messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 1_024,
        system: 'You are an SRE assistant.',
        tools: TOOLS,
        messages,
      });
      let text = '';
      stream.on('text', (delta) => {
        text += delta;
      });
      final = await stream.finalMessage();
      streamedText.push(text);
      // Appended before finalMessage() resolved: the log already ends with this answer.
      const logged = foldThread(await stores.events.readAll('local', 'ops')).messages.at(-1)!;
      expect(logged.role).toBe('assistant');
      expect(logged.content).toEqual(
        final.content.flatMap((block): ContentPart[] =>
          block.type === 'thinking'
            ? [{ type: 'reasoning', text: block.thinking, signature: block.signature }]
            : block.type === 'text'
              ? [{ type: 'text', text: block.text }]
              : block.type === 'tool_use'
                ? [{ type: 'tool_call', id: block.id, name: block.name, input: block.input }]
                : [],
        ),
      );
      messages.push({ role: 'assistant', content: final.content });
      const toolCalls = final.content.filter((block) => block.type === 'tool_use');
      if (toolCalls.length === 0) break;
      messages.push({
        role: 'user',
        content: toolCalls.map((call) => ({
          type: 'tool_result' as const,
          tool_use_id: call.id,
          content: `${(call.input as { service: string }).service}: 0 errors in the last hour. `.repeat(30),
        })),
      });
    }

    expect(final.content).toEqual([{ type: 'text', text: 'Every service is healthy.', citations: null }]);
    // What the SDK assembled from the events is the scripted message, block for block.
    const step3 = messages[2 * 3 - 1]!.content as Anthropic.Messages.ContentBlock[];
    expect(step3).toEqual(scripted(3).body.content);
    expect(streamedText[2]).toBe('Reading the log of service 3, which may take a moment.');
    expect(fake.requests).toHaveLength(STEPS);
    fake.requests.forEach((request, index) => {
      const body = request.body as Record<string, unknown>;
      expect(body.stream).toBe(true);
      expect(body.messages).toEqual(prepared[index]!.request.messages);
      expect(validateProviderRequest('anthropic', body).errors).toEqual([]);
      expect(prepared[index]!.tokens.total).toBeLessThanOrEqual(BUDGET);
    });
    expect(prepared.some((request) => request.compaction?.commit.status === 'committed')).toBe(true);
    // user + 24 × (assistant, tool) + the final answer: every streamed answer once.
    const thread = foldThread(await stores.events.readAll('local', 'ops'));
    expect(thread.messages).toHaveLength(1 + 2 * (STEPS - 1) + 1);
    expect(new Set(thread.messages.map((message) => message.id)).size).toBe(thread.messages.length);
  }, 180_000);

  it('appends nothing when the stream breaks off before message_stop', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const client = withCompaction(anthropic, { compactor, threadId: 'cut', contextWindow: 12_000 });
    const params = {
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      messages: [{ role: 'user' as const, content: 'Read the log of svc-1.' }],
    };
    // 25 events: start, ping, the thinking block (start, 7 deltas, signature, stop), the text block
    // (start, 8 deltas, stop), the tool_use block's start and first JSON delta. Thinking and text are
    // complete, the tool input is not, and message_stop never comes.
    fake.enqueue({ ...scripted(1), cutAfterEvents: 25 });
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow();
    const afterCut = foldThread(await stores.events.readAll('local', 'cut')).messages;
    expect(afterCut.map((message) => message.role)).toEqual(['user']);

    // The same stream ending cleanly, with no error but no message_stop: still nothing appended.
    fake.enqueue({ ...scripted(1), cutAfterEvents: 25, cutAs: 'end' });
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow();
    const afterEnd = foldThread(await stores.events.readAll('local', 'cut')).messages;
    expect(afterEnd.map((message) => message.role)).toEqual(['user']);

    // The retry streams whole and is appended, once.
    fake.enqueue(scripted(1));
    const retried = await client.messages.stream(params).finalMessage();
    expect(retried.stop_reason).toBe('tool_use');
    const logged = foldThread(await stores.events.readAll('local', 'cut')).messages;
    expect(logged.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(fake.requests).toHaveLength(3);
  }, 60_000);
  it('beta.messages.stream appends a streamed compaction block verbatim and sends it back first', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const client = withCompaction(anthropic, { compactor, threadId: 'server', contextWindow: 12_000 });
    const block = {
      type: 'compaction' as const,
      content: 'The user migrates service A; steps 1-3 are done.',
      encrypted_content: 'enc-7f3a',
      signature: 'sig-compaction-1',
    };
    // The server compacts (stop_reason 'compaction'): the answer is the block alone, streamed.
    fake.enqueue({
      ...answer([block], 'end_turn'),
      body: { ...answer([block], 'end_turn').body, stop_reason: 'compaction' },
    });
    const history: Anthropic.Beta.Messages.BetaMessageParam[] = [
      { role: 'user', content: 'Migrate service A.' },
    ];
    const streamed = await client.beta.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: history })
      .finalMessage();
    expect(streamed.content).toEqual([block]);
    const logged = foldThread(await stores.events.readAll('local', 'server')).messages.at(-1)!;
    expect(logged.content).toEqual([{ type: 'opaque', provider: 'anthropic', payload: block }]);

    // The next call sends the block back byte for byte, opening the request.
    fake.enqueue(answer([{ type: 'text', text: 'Step 4 next.', citations: null }], 'end_turn'));
    history.push({
      role: 'assistant',
      content: streamed.content as Anthropic.Beta.Messages.BetaContentBlockParam[],
    });
    history.push({ role: 'user', content: 'What is next?' });
    const next = await client.beta.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: history })
      .finalMessage();
    expect(next.content).toEqual([{ type: 'text', text: 'Step 4 next.', citations: null }]);
    const sent = fake.requests[1]!.body as {
      stream: boolean;
      messages: { role: string; content: unknown[] }[];
    };
    expect(sent.stream).toBe(true);
    expect(sent.messages[0]!.role).toBe('assistant');
    expect(JSON.stringify(sent.messages[0]!.content[0])).toBe(JSON.stringify(block));
    const thread = foldThread(await stores.events.readAll('local', 'server')).messages;
    expect(thread.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  }, 60_000);
});
