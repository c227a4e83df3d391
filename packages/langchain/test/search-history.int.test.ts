import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventInput } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { ToolMessage } from 'langchain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEARCH_HISTORY_TOOL_NAME, searchHistoryTool } from '../src/index.js';

function step(index: number): EventInput[] {
  return [
    {
      eventId: `u${index}`,
      type: 'message.appended',
      message: {
        id: `u${index}`,
        role: 'user',
        content: [{ type: 'text', text: `Check service s${index}.` }],
      },
    },
    {
      eventId: `a${index}`,
      type: 'message.appended',
      message: {
        id: `a${index}`,
        role: 'assistant',
        content: [{ type: 'tool_call', id: `c${index}`, name: 'read_log', input: { service: `s${index}` } }],
      },
    },
    {
      eventId: `t${index}`,
      type: 'message.appended',
      message: {
        id: `t${index}`,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolName: 'read_log',
            toolCallId: `c${index}`,
            outcome: 'success',
            keyFields: {},
            content: `s${index}: ${index === 1 ? 'disk quota warning on volume pelican. ' : ''}${'0 errors, p99 41 ms. '.repeat(40)}`,
          },
        ],
      },
    },
  ];
}

describe('searchHistoryTool (LangChain)', () => {
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-langchain-search-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is a LangChain tool that answers from the compacted messages', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    await compactor.append('agent', [
      { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 12_000 },
    ]);
    let planVersion: number | null = null;
    for (let index = 1; index <= 30 && planVersion === null; index += 1) {
      await compactor.append('agent', step(index));
      planVersion = (await compactor.prepare('agent', { provider: 'ai-sdk', budget: 5_000 })).report
        .planVersion;
    }
    expect(planVersion).not.toBeNull();
    const search = searchHistoryTool({ compactor, threadId: 'agent' });
    expect(search.name).toBe(SEARCH_HISTORY_TOOL_NAME);
    const text = await search.invoke({ query: 'pelican disk quota' });
    expect(String(text)).toContain('disk quota warning on volume pelican');
    // Called as the agent calls tools (with the model's tool call), it answers with a ToolMessage.
    const message = await search.invoke({
      id: 'call_9',
      name: SEARCH_HISTORY_TOOL_NAME,
      args: { query: 'pelican' },
      type: 'tool_call',
    });
    expect(ToolMessage.isInstance(message)).toBe(true);
    expect((message as ToolMessage).tool_call_id).toBe('call_9');
    expect(String((message as ToolMessage).content)).toContain('pelican');
  }, 120_000);
});
