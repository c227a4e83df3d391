import {
  editPlan,
  foldThread,
  type Message,
  type ProviderName,
  type Tokenizer,
  type ToolDefinition,
} from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ConversationMeasure,
  createRenderCache,
  measureConversation,
  renderPromptSync,
} from '../src/index.js';
import { deploySession, edgeCaseThread, TOOLS } from './support/fixtures.js';
import { drop, externalize, planOf } from './support/plans.js';
import { renderInput } from './support/render-helpers.js';
import { tokenizerFor } from './support/tokenizers.js';

function spyTokenizer(provider: ProviderName) {
  const real = tokenizerFor(provider);
  const calls = { messages: 0, tools: 0 };
  const tokenizer: Tokenizer = {
    id: real.id,
    count: (text) => real.count(text),
    countMessage: (message: Message, name) => {
      calls.messages += 1;
      return real.countMessage(message, name);
    },
    countTools: (tools: readonly ToolDefinition[], name) => {
      calls.tools += 1;
      return real.countTools(tools, name);
    },
  };
  return { tokenizer, calls };
}

describe('RenderCache', () => {
  const { thread } = deploySession();

  it('re-tokenizes nothing on a warm render', () => {
    const cache = createRenderCache();
    const { tokenizer, calls } = spyTokenizer('anthropic');
    renderPromptSync(renderInput('anthropic', thread, null, { cache, tokenizer }));
    const afterCold = { ...calls };
    expect(afterCold.messages).toBeGreaterThan(10);
    renderPromptSync(renderInput('anthropic', thread, null, { cache, tokenizer }));
    expect(calls).toEqual(afterCold);
  });

  it('serves an equal tools array built anew for every call from memory', () => {
    const cache = createRenderCache();
    const { tokenizer, calls } = spyTokenizer('openai-chat');
    for (let call = 0; call < 3; call += 1) {
      const tools = TOOLS.map((tool) => ({ ...tool }));
      renderPromptSync(renderInput('openai-chat', thread, null, { cache, tokenizer, tools }));
    }
    expect(calls.tools).toBe(1);
  });

  it('stays within maxBytes, dropping the least recently rendered thread first', () => {
    const measure = (render: (cache: ReturnType<typeof createRenderCache>) => void) => {
      const cache = createRenderCache();
      render(cache);
      return cache.stats.bytes;
    };
    const deployBytes = measure((cache) =>
      renderPromptSync(renderInput('anthropic', thread, null, { cache })),
    );
    const edgeBytes = measure((cache) =>
      renderPromptSync(renderInput('anthropic', edgeCaseThread(), null, { cache })),
    );
    // Room for either thread, not for both.
    const cache = createRenderCache({ maxBytes: Math.max(deployBytes, edgeBytes) + 1_000 });
    renderPromptSync(renderInput('anthropic', thread, null, { cache }));
    renderPromptSync(renderInput('anthropic', edgeCaseThread(), null, { cache }));
    expect(cache.threadCount).toBe(1);
    expect(cache.stats.bytes).toBeLessThanOrEqual(cache.stats.maxBytes);
    expect(cache.stats.evictions).toBeGreaterThan(0);
    const { tokenizer, calls } = spyTokenizer('anthropic');
    renderPromptSync(renderInput('anthropic', thread, null, { cache, tokenizer }));
    expect(calls.messages).toBeGreaterThan(10);
  });

  it('renders the same bytes with a budget smaller than one thread, and keeps within it', () => {
    const cold = JSON.stringify(renderPromptSync(renderInput('anthropic', thread, null)));
    for (const maxBytes of [0, 2_000, 20_000]) {
      const small = createRenderCache({ maxBytes });
      for (let call = 0; call < 3; call += 1) {
        expect(
          JSON.stringify(renderPromptSync(renderInput('anthropic', thread, null, { cache: small }))),
        ).toBe(cold);
        expect(small.stats.bytes).toBeLessThanOrEqual(maxBytes);
      }
    }
  });

  it('keeps a check’s committed plan resolved, and its candidates’ charge bounded, while a planner measures them', () => {
    // A long thread's candidates each name every hidden id: kept by content and charged whole, a dozen of
    // them filled the memo and shed every piece (issue #18). The committed plan, resolved again next call, stays.
    const long = deploySession((builder) => {
      for (let turn = 0; turn < 30; turn += 1)
        builder
          .user(`Step ${turn}: go on.`, { id: `step-${turn}-user` })
          .assistant(`Step ${turn} done, moving to the next one.`, { id: `step-${turn}-reply` });
    }).thread;
    const cache = createRenderCache();
    const tokenizer = tokenizerFor('anthropic');
    const committed = planOf(long, []);
    const measure = (plan: typeof committed, previous?: ConversationMeasure) =>
      measureConversation({ thread: long, plan, provider: 'anthropic', tokenizer, cache }, previous);
    let measured = measure(committed);
    const builds = cache.stats.resolutionBuilds;
    let candidate = committed;
    const bytesAfter: number[] = [];
    const userTurns = long.messages.filter((message) => message.role === 'user' && !message.pinned);
    for (const message of userTurns.slice(0, 12)) {
      candidate = editPlan(candidate, [drop(long, [message.id])]);
      measured = measure(candidate, measured);
      bytesAfter.push(cache.stats.bytes);
    }
    expect(cache.stats.resolutionBuilds).toBe(builds + 12);
    measure(committed);
    expect(cache.stats.resolutionBuilds).toBe(builds + 12);
    expect(cache.stats.evictions).toBe(0);
    // Twelve candidates hold no more than three did: two resolutions are kept, not one per candidate.
    expect(bytesAfter[11]!).toBeLessThanOrEqual(bytesAfter[2]!);
  });

  it('counts hits and misses itself and hands out only a snapshot of them', () => {
    const cache = createRenderCache();
    renderPromptSync(renderInput('anthropic', thread, null, { cache }));
    const cold = cache.stats;
    expect(cold.misses).toBeGreaterThan(10);
    (cache.stats as { hits: number }).hits = 1_000_000;
    renderPromptSync(renderInput('anthropic', thread, null, { cache }));
    const warm = cache.stats;
    expect(warm.misses).toBe(cold.misses);
    expect(warm.hits).toBeGreaterThan(cold.hits);
    expect(warm.hits).toBeLessThan(1_000_000);
  });

  it('renders an externalization first met on a later thread version as a cold render does', () => {
    // The plan names a result that has not arrived yet; the first render checks only the other record. When the
    // result arrives, its record is checked against the messages of the version being rendered (a message map
    // kept from the first render once made the warm render take the call into the externalized span).
    const { events } = deploySession();
    const full = foldThread(events);
    const resultOf = (callId: string) =>
      full.messages.find((message) =>
        message.content.some((part) => part.type === 'tool_result' && part.toolCallId === callId),
      )!.id;
    const plan = planOf(full, [
      externalize(full, [resultOf('c1')], 'artifact-log', { facts: [{ text: 'The health check failed' }] }),
      externalize(full, [resultOf('c5')], 'artifact-tests', { facts: [{ text: '42 tests passed' }] }),
    ]);
    const arrival = events.findIndex(
      (event) => event.type === 'message.appended' && event.message.id === resultOf('c5'),
    );
    for (const provider of ['anthropic', 'openai-chat'] as const) {
      const cache = createRenderCache();
      renderPromptSync(renderInput(provider, foldThread(events.slice(0, arrival)), plan, { cache }));
      const warm = renderPromptSync(renderInput(provider, full, plan, { cache }));
      expect(warm.report.counts.externalized).toBe(2);
      expect(JSON.stringify(warm)).toBe(JSON.stringify(renderPromptSync(renderInput(provider, full, plan))));
    }
  });

  it('keeps providers and tokenizers apart', () => {
    const cache = createRenderCache();
    const anthropic = renderPromptSync(renderInput('anthropic', thread, null, { cache }));
    const chat = renderPromptSync(renderInput('openai-chat', thread, null, { cache }));
    expect(JSON.stringify(chat)).toBe(
      JSON.stringify(renderPromptSync(renderInput('openai-chat', thread, null))),
    );
    expect(JSON.stringify(anthropic)).not.toBe(JSON.stringify(chat));
    expect(cache.threadCount).toBe(2);
  });
});

describe('no memo outside the cache', () => {
  it('renders a thread the same whatever was rendered before it in the process', () => {
    const { thread } = deploySession();
    const [tool, next] = [thread.messages[3]!, thread.messages[4]!];
    expect([tool.role, next.role]).toEqual(['tool', 'assistant']);
    // An externalization over a tool result and the assistant message after it: on the full thread
    // it is an ordinary externalization; while the thread ends at the tool result, it covers only
    // tool results and is shown in the result's slot.
    const makePlan = () => planOf(thread, [externalize(thread, [tool.id, next.id], 'art_span', {})]);
    const seenShort = makePlan();
    const short = { ...thread, messages: thread.messages.slice(0, 4) };
    renderPromptSync(renderInput('anthropic', short, seenShort));
    const afterShort = JSON.stringify(renderPromptSync(renderInput('anthropic', thread, seenShort)));
    const fresh = JSON.stringify(renderPromptSync(renderInput('anthropic', thread, makePlan())));
    expect(afterShort).toBe(fresh);
    // The same through one cache as the thread grows.
    const cache = createRenderCache();
    const grown = makePlan();
    renderPromptSync(renderInput('anthropic', short, grown, { cache }));
    expect(JSON.stringify(renderPromptSync(renderInput('anthropic', thread, grown, { cache })))).toBe(fresh);
  });
});

describe('RenderCache tenant isolation', () => {
  it('never serves one tenant’s message to another with the same thread and message ids', async () => {
    const { threadBuilder } = await import('@compactor/testkit/thread-builder');
    const cache = createRenderCache();
    const alice = threadBuilder('t', { tenantId: 'alice' }).user('alice secret: blue').build().thread;
    const bob = threadBuilder('t', { tenantId: 'bob' }).user('bob secret: green').build().thread;
    expect(alice.messages[0]!.id).toBe(bob.messages[0]!.id);
    expect(alice.messages[0]!.seq).toBe(bob.messages[0]!.seq);
    const first = JSON.stringify(
      renderPromptSync({ ...renderInput('anthropic', alice, null), cache }).request,
    );
    const second = JSON.stringify(
      renderPromptSync({ ...renderInput('anthropic', bob, null), cache }).request,
    );
    expect(first).toContain('alice secret');
    expect(second).toContain('bob secret');
    expect(second).not.toContain('alice secret');
  });
});

describe('RenderCache byte budget (fast-check)', () => {
  it('renders what an uncached render renders, whatever the budget, and never holds more than it', async () => {
    const { arbitraryCompactionPlan, arbitraryThread } = await import('@compactor/testkit/arbitraries');
    const { foldThread } = await import('@compactor/core');
    const scenario = arbitraryThread({ maxTurns: 4 }).chain(({ events }) =>
      fc.record({
        events: fc.constant(events),
        plan: fc.option(arbitraryCompactionPlan(foldThread(events), { maxRecords: 4 }), { nil: null }),
        provider: fc.constantFrom<ProviderName>('anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'),
        maxBytes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200_000 })),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ events, plan, provider, maxBytes }) => {
        const cache = createRenderCache({ maxBytes });
        // The thread as it grows, event by event: the cache extends, evicts and reuses along the way.
        for (let length = Math.max(1, events.length - 4); length <= events.length; length += 1) {
          const thread = foldThread(events.slice(0, length));
          const usable = plan !== null && length === events.length ? plan : null;
          const cached = renderPromptSync(renderInput(provider, thread, usable, { cache }));
          const uncached = renderPromptSync(renderInput(provider, thread, usable));
          expect(JSON.stringify(cached)).toBe(JSON.stringify(uncached));
          expect(cache.stats.bytes).toBeLessThanOrEqual(maxBytes);
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
