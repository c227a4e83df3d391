import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Anthropic } from '@anthropic-ai/sdk';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { type FakeMessagesApi, startFakeMessagesApi } from '@compactor/testkit/fake-messages-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerSearchHistory, SEARCH_HISTORY_TOOL_NAME, withCompaction } from '../src/index.js';

type Params = Anthropic.Messages.MessageCreateParamsNonStreaming;

const TOOLS: Anthropic.Messages.Tool[] = [
  {
    name: 'read_log',
    description: 'Read one service log.',
    input_schema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
  },
];

/** A read_log call on the next service each time, as the Messages API answers it. */
function toolUseAnswer(call: number) {
  return {
    status: 200,
    body: {
      id: `msg_${call}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'tool_use', id: `toolu_${call}`, name: 'read_log', input: { service: `s${call}` } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  };
}

describe('search_history with the Anthropic SDK adapter (ADR-0163)', () => {
  let fake: FakeMessagesApi;
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    fake = await startFakeMessagesApi();
    let calls = 0;
    fake.setFallback(() => {
      calls += 1;
      return toolUseAnswer(calls);
    });
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-anthropic-search-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await fake.close();
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('offers the tool from the first request and answers its tool_use blocks', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const client = withCompaction(anthropic, {
      compactor,
      threadId: 'agent',
      budget: 5_000,
      contextWindow: 12_000,
      searchHistory: true,
    });
    const messages: Anthropic.Messages.MessageParam[] = [
      { role: 'user', content: 'Check every service log.' },
    ];
    for (let step = 1; step <= 25; step += 1) {
      const response = await client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 512,
        tools: TOOLS,
        messages,
      });
      const use = response.content.find((block) => block.type === 'tool_use')!;
      messages.push({
        role: 'assistant',
        content: response.content as Anthropic.Messages.ContentBlockParam[],
      });
      messages.push({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: use.id,
            content: `s${step}: ${step === 1 ? 'certificate for heron.example expires Friday. ' : ''}${'0 errors. '.repeat(60)}`,
          },
        ],
      });
    }
    const sent = fake.requests.map((request) => request.body as Params);
    // Compactor's tools follow the caller's from the first request and never change (ADR-0141), so a
    // compaction never breaks the cached prefix at the tool list.
    const toolNames = (params: Params) => params.tools?.map((tool) => ('name' in tool ? tool.name : ''));
    expect(toolNames(sent[0]!)).toEqual(['read_log', 'read_artifact', SEARCH_HISTORY_TOOL_NAME]);
    for (const params of sent) expect(toolNames(params)).toEqual(toolNames(sent[0]!));
    expect(JSON.stringify(sent.at(-1)!.messages)).not.toContain('heron.example');

    const block = await answerSearchHistory(compactor, 'agent', {
      id: 'toolu_search',
      input: { query: 'certificate heron expires' },
    });
    expect(block).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_search' });
    expect(block.is_error).toBeUndefined();
    expect(String(block.content)).toContain('certificate for heron.example expires Friday');
    const bad = await answerSearchHistory(compactor, 'agent', { id: 'toolu_bad', input: {} });
    expect(bad.is_error).toBe(true);
  }, 120_000);
});
