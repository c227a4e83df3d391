/**
 * An agent loop written as on the Anthropic SDK (a real `Anthropic` client, tool_use → tool_result
 * round trips), pointed at testkit's loopback fake of the Messages API and wrapped with
 * `withCompaction`. Every request the server received is the rendered one: valid, within budget,
 * with the caller's own settings; the log holds every message once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Anthropic } from '@anthropic-ai/sdk';
import { foldThread } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor, type PreparedRequest } from '@compactor/engine';
import { validateProviderRequest } from '@compactor/render/validate';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { type FakeMessagesApi, startFakeMessagesApi } from '@compactor/testkit/fake-messages-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withCompaction } from '../src/index.js';

const STEPS = 40;
const BUDGET = 9_000;
const TOOLS: Anthropic.Messages.Tool[] = [
  {
    name: 'read_log',
    description: 'Read one service log.',
    input_schema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
  },
];

function message(content: Anthropic.Messages.ContentBlock[], stop: Anthropic.Messages.StopReason) {
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

describe('withCompaction around messages.create', () => {
  let fake: FakeMessagesApi;
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    fake = await startFakeMessagesApi();
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-anthropic-'));
    stores = await createEmbeddedStores({ dataDir });
    let calls = 0;
    fake.setFallback(() => {
      calls += 1;
      return calls < STEPS
        ? message(
            [
              { type: 'text', text: `Reading log ${calls}.`, citations: null },
              {
                type: 'tool_use',
                id: `toolu_${calls}`,
                name: 'read_log',
                input: { service: `svc-${calls}` },
              } as Anthropic.Messages.ToolUseBlock,
            ],
            'tool_use',
          )
        : message([{ type: 'text', text: 'Every service is healthy.', citations: null }], 'end_turn');
    });
  });
  afterEach(async () => {
    await fake.close();
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sends every call compacted, valid and within budget, and logs each message once', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const prepared: PreparedRequest<'anthropic'>[] = [];
    const client = withCompaction(anthropic, {
      compactor,
      threadId: 'ops',
      contextWindow: 20_000,
      budget: BUDGET,
      onPrepared: (request) => prepared.push(request),
    });

    // The integrator's loop, unchanged but for the wrapper.
    const messages: Anthropic.Messages.MessageParam[] = [
      { role: 'user', content: 'Check every service log.' },
    ];
    let response: Anthropic.Messages.Message;
    for (;;) {
      response = await client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 1_024,
        stop_sequences: ['<done>'],
        system: 'You are an SRE assistant.',
        tools: TOOLS,
        messages,
      });
      messages.push({ role: 'assistant', content: response.content });
      const calls = response.content.filter((block) => block.type === 'tool_use');
      if (calls.length === 0) break;
      messages.push({
        role: 'user',
        content: calls.map((call) => ({
          type: 'tool_result' as const,
          tool_use_id: call.id,
          content: `${(call.input as { service: string }).service}: 0 errors in the last hour. `.repeat(40),
        })),
      });
    }

    expect(response.content).toEqual([{ type: 'text', text: 'Every service is healthy.', citations: null }]);
    expect(fake.requests).toHaveLength(STEPS);
    expect(prepared).toHaveLength(STEPS);
    fake.requests.forEach((request, index) => {
      const body = request.body as Record<string, unknown>;
      expect(body.model).toBe('claude-sonnet-4-5');
      expect(body.max_tokens).toBe(1_024);
      expect(body.stop_sequences).toEqual(['<done>']);
      expect(body.messages).toEqual(prepared[index]!.request.messages);
      expect(body.system).toEqual(prepared[index]!.request.system);
      expect(validateProviderRequest('anthropic', body).errors).toEqual([]);
      expect(prepared[index]!.tokens.total).toBeLessThanOrEqual(BUDGET);
    });
    // The uncompacted history would not fit; compaction made it.
    expect(JSON.stringify(messages).length / 4).toBeGreaterThan(BUDGET);
    expect(prepared.some((request) => request.compaction?.commit.status === 'committed')).toBe(true);
    const thread = foldThread(await stores.events.readAll('local', 'ops'));
    // user + 39 × (assistant, tool) + the final answer.
    expect(thread.messages).toHaveLength(1 + 2 * (STEPS - 1) + 1);
  }, 180_000);
});
