import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventInput, ToolDefinition } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import type { AnthropicRequest } from '@compactor/render';
import { validateProviderRequest } from '@compactor/render/validate';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createCompactor } from '../src/index.js';

const TOOLS: ToolDefinition[] = [
  {
    name: 'run_tests',
    description: 'Run the tests of one module and print the report.',
    inputSchema: { type: 'object', properties: { module: { type: 'string' } }, required: ['module'] },
  },
];
const SYSTEM = 'You are a careful testing agent. Run each module’s tests and explain failures.';

function step(index: number): EventInput[] {
  const callId = `call_${index}`;
  return [
    {
      eventId: `u${index}`,
      type: 'message.appended',
      message: { id: `u${index}`, role: 'user', content: [{ type: 'text', text: `Test module ${index}.` }] },
    },
    {
      eventId: `a${index}`,
      type: 'message.appended',
      message: {
        id: `a${index}`,
        role: 'assistant',
        content: [{ type: 'tool_call', id: callId, name: 'run_tests', input: { module: `m${index}` } }],
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
            toolName: 'run_tests',
            toolCallId: callId,
            outcome: 'success',
            content: `module m${index}: 31 passed, 0 failed. `.repeat(25),
            keyFields: { module: `m${index}` },
          },
        ],
      },
    },
  ];
}

describe('compactor.prepare', () => {
  let dataDir: string;
  let stores: EmbeddedStores;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-prepare-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('compacts inline when due and returns a typed, valid request within the budget, system and tools included', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    await compactor.append('agent', [
      { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 12_000 },
    ]);
    let commits = 0;
    for (let index = 1; index <= 40; index += 1) {
      await compactor.append('agent', step(index));
      const prepared = await compactor.prepare('agent', {
        provider: 'anthropic',
        system: SYSTEM,
        tools: TOOLS,
        budget: 6_000,
      });
      expectTypeOf(prepared.request).toEqualTypeOf<AnthropicRequest>();
      if (prepared.compaction?.commit.status === 'committed') commits += 1;
      expect(prepared.tokens.system).toBeGreaterThan(0);
      expect(prepared.tokens.tools).toBeGreaterThan(0);
      expect(prepared.tokens.total).toBeLessThanOrEqual(6_000);
      expect(validateProviderRequest('anthropic', prepared.request).errors).toEqual([]);
      // The newest tool result is always in the request, verbatim (a recall block, when there is one,
      // comes after it: ADR-0111).
      const newestResult = prepared.request.messages
        .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
        .find((block) => block.type === 'tool_result' && block.tool_use_id === `call_${index}`);
      expect(JSON.stringify(newestResult)).toContain(`module m${index}: 31 passed, 0 failed.`);
    }
    expect(commits).toBeGreaterThan(0);
  }, 120_000);

  it('in background mode renders under the last committed plan and compacts nothing itself', async () => {
    const summarizer = createExtractiveSummarizer();
    const inline = createCompactor({ stores, summarizer });
    const background = createCompactor({ stores, summarizer, compaction: 'background' });
    await inline.append('agent', [
      { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 12_000 },
    ]);
    for (let index = 1; index <= 20; index += 1) await inline.append('agent', step(index));
    const before = await stores.plans.getCurrent('local', 'agent');
    const viaWorker = await background.prepare('agent', {
      provider: 'openai-chat',
      system: SYSTEM,
      tools: TOOLS,
    });
    expect(viaWorker.compaction).toBeNull();
    expect((await stores.plans.getCurrent('local', 'agent')).version).toBe(before.version);
    expect(viaWorker.report.planVersion).toBe(before.plan ? before.version : null);

    await inline.prepare('agent', { provider: 'openai-chat', system: SYSTEM, tools: TOOLS });
    const committed = await stores.plans.getCurrent('local', 'agent');
    expect(committed.version).toBeGreaterThan(before.version);
    const afterWorker = await background.prepare('agent', {
      provider: 'openai-chat',
      system: SYSTEM,
      tools: TOOLS,
    });
    expect(afterWorker.report.planVersion).toBe(committed.version);
    // The committed plan shrinks the conversation; recall may then fill the room it freed with an
    // ephemeral block (ADR-0162, ADR-0220), so compare what the plan renders.
    expect(afterWorker.tokens.total - afterWorker.tokens.recall).toBeLessThan(
      viaWorker.tokens.total - viaWorker.tokens.recall,
    );
    expect(afterWorker.tokens.total).toBeLessThanOrEqual(afterWorker.report.ceiling);
  }, 120_000);

  it('offers search_history once something is compacted and answers its calls from the compacted messages (ADR-0163)', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    await compactor.append('agent', [
      { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 12_000 },
    ]);
    let prepared = await compactor.prepare('agent', {
      provider: 'anthropic',
      tools: TOOLS,
      searchHistoryTool: true,
    });
    for (let index = 1; index <= 30 && prepared.report.planVersion === null; index += 1) {
      await compactor.append('agent', step(index));
      prepared = await compactor.prepare('agent', {
        provider: 'anthropic',
        tools: TOOLS,
        budget: 6_000,
        searchHistoryTool: true,
      });
    }
    expect(prepared.report.planVersion).not.toBeNull();
    expect(prepared.report.toolsAdded).toContain('search_history');
    expect(prepared.request.tools?.map((tool) => tool.name)).toContain('search_history');
    const answer = await compactor.searchHistory('agent', {
      toolCallId: 'sh1',
      input: { query: 'm1 passed' },
    });
    expect(answer.result.toolCallId).toBe('sh1');
    expect(answer.result.outcome).toBe('success');
    expect(answer.hits.length).toBeGreaterThan(0);
    expect(answer.result.content).toContain('module m1: 31 passed');
    const without = await compactor.prepare('agent', { provider: 'anthropic', tools: TOOLS, budget: 6_000 });
    expect(without.report.toolsAdded).not.toContain('search_history');
  }, 120_000);

  it('says which thread it cannot find', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    await expect(compactor.prepare('missing', { provider: 'ai-sdk' })).rejects.toThrow(/missing/);
  });
});
