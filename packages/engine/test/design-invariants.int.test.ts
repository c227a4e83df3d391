/**
 * The production design's invariant tests (ADR-0020) and the edge cases of ADR-0012/ADR-0017, end to end: embedded stores, the real
 * tokenizer, the real renderer, the extractive summarizer behind the fallback chain.
 */
import { type EventInput, fixedClock, type Summarizer, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { validateAnthropicRequest } from '@compactor/render/validate';
import { createResilientSummarizer } from '@compactor/summarizer';
import { createTokenizer } from '@compactor/tokenizer';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/index.js';
import { type EmbeddedStores, withEmbeddedStores } from './support.js';

const TENANT = 'tenant-1';
const clock = fixedClock('2025-06-01T00:00:00.000Z');
const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
const SYSTEM = 'You are a meticulous data engineer. Follow the user constraints exactly.';
const TOOLS = [
  {
    name: 'run_sql',
    description: 'Run a SQL statement',
    inputSchema: { type: 'object', properties: { sql: { type: 'string' } } },
  },
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** Appends turns to one thread the way a service would, one batch per turn. */
async function conversation(policy: Record<string, unknown> = {}, contextWindow = 30_000) {
  const { stores, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  const threadId = 'thread-1';
  let counter = 0;
  const id = () => {
    counter += 1;
    return `e${counter}`;
  };
  await stores.events.append(TENANT, threadId, [
    {
      eventId: id(),
      type: 'thread.created',
      model: 'claude-sonnet-4-5',
      contextWindow,
      policy: {
        outputReserveTokens: 2000,
        keepRecentTurns: 2,
        keepRecentTokens: 1500,
        clearAtLeastTokens: 500,
        ...policy,
      },
    },
  ]);
  const message = (
    role: 'user' | 'assistant' | 'tool',
    content: EventInput extends infer _ ? unknown[] : never,
    extra = {},
  ): EventInput => ({
    eventId: id(),
    type: 'message.appended',
    message: { id: `m${counter}`, role, content: content as never, ...extra },
  });
  return {
    stores,
    threadId,
    async say(text: string, extra = {}) {
      await stores.events.append(TENANT, threadId, [message('user', [{ type: 'text', text }], extra)]);
    },
    /** An assistant turn that runs a query and gets a big result back. */
    async work(step: number, resultLines = 120) {
      const callId = `call_${step}`;
      await stores.events.append(TENANT, threadId, [
        message('assistant', [
          { type: 'text', text: `Running step ${step}.` },
          { type: 'tool_call', id: callId, name: 'run_sql', input: { sql: `select * from t${step}` } },
        ]),
        message('tool', [
          {
            type: 'tool_result',
            toolName: 'run_sql',
            toolCallId: callId,
            outcome: 'success',
            content: `row ${step}: value=${step * 7} status=ok\n`.repeat(resultLines),
            keyFields: { table: `t${step}`, rows: resultLines },
            durability: 'ephemeral',
          },
        ]),
        message('assistant', [{ type: 'text', text: `Step ${step} finished.` }]),
      ]);
    },
  };
}

async function compactAndRender(
  stores: EmbeddedStores,
  threadId: string,
  summarizer: Summarizer = createResilientSummarizer(),
) {
  const engine = createCompactionEngine({
    events: stores.events,
    plans: stores.plans,
    artifacts: stores.artifacts,
    lifecycle: stores.lifecycle,
    summarizer,
    clock,
  });
  const result = await engine.check(TENANT, threadId);
  const { foldThread } = await import('@compactor/core');
  const thread = foldThread(await stores.events.readAll(TENANT, threadId));
  const { plan } = await stores.plans.getCurrent(TENANT, threadId);
  const rendered = renderPromptSync({
    thread,
    plan,
    system: SYSTEM,
    tools: TOOLS,
    budget: tokenBudget({ maxInputTokens: thread.contextWindow, outputReserveTokens: 2000 }),
    provider: 'anthropic',
    tokenizer,
  });
  return { result, rendered, text: JSON.stringify(rendered.request) };
}

describe('invariants (ADR-0002, ADR-0006, ADR-0009)', () => {
  it('keeps critical facts through 5 compaction cycles', async () => {
    const thread = await conversation({
      strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: true },
    });
    await thread.say('I prefer Python for every script. The budget is $1000, never more.');
    let compactions = 0;
    for (let cycle = 1; cycle <= 5; cycle += 1) {
      for (let step = 1; step <= 24; step += 1) {
        await thread.say(`Cycle ${cycle}, step ${step}: continue.`);
        await thread.work(cycle * 100 + step);
      }
      const { result, text } = await compactAndRender(thread.stores, thread.threadId);
      if (result.commit.status === 'committed') compactions += 1;
      expect(text).toContain('Python');
      expect(text).toContain('1000');
    }
    expect(compactions).toBe(5);
  });

  it('keeps a pinned constraint verbatim through 10 summarizations', async () => {
    const constraint = 'Never delete production data.';
    const thread = await conversation({
      strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
    });
    await thread.say(`Clean up the staging tables. ${constraint}`);
    for (let round = 1; round <= 10; round += 1) {
      for (let step = 1; step <= 24; step += 1) {
        await thread.say(`Round ${round}, table ${step}.`);
        await thread.work(round * 100 + step);
      }
      const { result, text } = await compactAndRender(thread.stores, thread.threadId);
      expect(result.commit.status).toBe('committed');
      // The user's whole message, verbatim in the conversation, not only a summary fact (ADR-0110).
      expect(text).toContain(`Clean up the staging tables. ${constraint}`);
    }
    const { plan } = await thread.stores.plans.getCurrent(TENANT, thread.threadId);
    // Append-only summary blocks (ADR-0150): one block per round, the newest merged past maxSummaryBlocks (ADR-0211).
    expect(plan!.summarizations.length).toBeGreaterThan(1);
    expect(plan!.summarizations.length).toBeLessThanOrEqual(8);
    expect(Math.max(...plan!.summarizations.map((block) => block.round))).toBe(10);
  });

  it('stays under budget with real system, tool and formatting overhead, and is provider-valid', async () => {
    const thread = await conversation();
    await thread.say('Audit every table.');
    for (let step = 1; step <= 30; step += 1) {
      await thread.say(`Table ${step}.`);
      await thread.work(step);
      const { rendered } = await compactAndRender(thread.stores, thread.threadId);
      expect(rendered.tokens.total).toBeLessThanOrEqual(rendered.report.ceiling);
      expect(tokenizer.countRequest(rendered.request, 'anthropic')).toBeLessThanOrEqual(
        rendered.report.ceiling,
      );
      expect(validateAnthropicRequest(rendered.request).errors).toEqual([]);
    }
  });
});

describe('edge cases: a huge tool result, nothing to compact, orphaned tool messages, summarizer failure (ADR-0012, ADR-0017)', () => {
  it('one huge tool result: externalized, and the rendered prompt fits', async () => {
    const thread = await conversation();
    await thread.say('Dump the audit log.');
    await thread.stores.events.append(TENANT, thread.threadId, [
      {
        eventId: 'huge-call',
        type: 'message.appended',
        message: {
          id: 'huge-call',
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'dump', name: 'read_file', input: { path: 'audit.log' } }],
        },
      },
      {
        eventId: 'huge-result',
        type: 'message.appended',
        message: {
          id: 'huge-result',
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              toolName: 'read_file',
              toolCallId: 'dump',
              outcome: 'success',
              content: 'audit entry 42 ok\n'.repeat(8000),
              keyFields: {},
              durability: 'non_replayable',
            },
          ],
        },
      },
    ]);
    for (let step = 1; step <= 3; step += 1) await thread.say(`Next ${step}.`);
    const { result, rendered, text } = await compactAndRender(thread.stores, thread.threadId);
    expect(result.planner?.rungsUsed).toContain('externalize');
    expect(text).toMatch(/art_[0-9a-f]{64}/);
    expect(rendered.tokens.total).toBeLessThanOrEqual(rendered.report.ceiling);
  });

  it('all messages recent, a very short session, an empty conversation: nothing to do', async () => {
    const empty = await conversation();
    expect((await compactAndRender(empty.stores, empty.threadId)).result.commit.status).toBe('not_needed');
    const short = await conversation();
    await short.say('hi');
    await short.work(1, 2);
    expect((await compactAndRender(short.stores, short.threadId)).result.commit.status).toBe('not_needed');
  });

  it('an orphaned tool message and a dangling call: compaction and render stay valid', async () => {
    const thread = await conversation();
    await thread.say('Check the replicas.');
    await thread.stores.events.append(TENANT, thread.threadId, [
      {
        eventId: 'orphan',
        type: 'message.appended',
        message: {
          id: 'orphan',
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              toolName: 'run_sql',
              toolCallId: 'never-called',
              outcome: 'success',
              content: 'stray',
              keyFields: {},
            },
          ],
        },
      },
    ]);
    for (let step = 1; step <= 24; step += 1) {
      await thread.say(`Replica ${step}.`);
      await thread.work(step);
    }
    await thread.stores.events.append(TENANT, thread.threadId, [
      {
        eventId: 'dangling',
        type: 'message.appended',
        message: {
          id: 'dangling',
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'pending', name: 'run_sql', input: { sql: 'select 1' } }],
        },
      },
    ]);
    const { result, rendered } = await compactAndRender(thread.stores, thread.threadId);
    expect(result.commit.status).toBe('committed');
    expect(validateAnthropicRequest(rendered.request).errors).toEqual([]);
    expect(rendered.tokens.total).toBeLessThanOrEqual(rendered.report.ceiling);
  });

  it('summarizer failure: the fallback chain still produces a summary and nothing is lost', async () => {
    const thread = await conversation({
      strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
    });
    await thread.say('Keep the invoices table. Never drop it.');
    for (let step = 1; step <= 24; step += 1) {
      await thread.say(`Step ${step}.`);
      await thread.work(step);
    }
    const broken: Summarizer = {
      id: 'broken',
      modelId: 'broken',
      promptVersion: '1',
      summarize: async () => {
        throw new Error('upstream 529');
      },
    };
    const { result, text } = await compactAndRender(
      thread.stores,
      thread.threadId,
      createResilientSummarizer({ primary: broken }),
    );
    expect(result.commit.status).toBe('committed');
    expect(text).toContain('Never drop it.');
  });
});
