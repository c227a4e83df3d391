import {
  fixedClock,
  type SummarizeRequest,
  type Summarizer,
  TOKENIZER_FAMILY_METADATA_KEY,
  tokenBudget,
} from '@compactor/core';
import { compactorToolsTokens, renderPromptSync } from '@compactor/render';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine, threadBudget } from '../src/index.js';
import { type EmbeddedStores, withEmbeddedStores } from './support.js';

const clock = fixedClock('2025-06-01T00:00:00.000Z');
let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function stores(): Promise<EmbeddedStores> {
  const { stores: created, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  return created;
}

function barrierSummarizer(inner: Summarizer, parties: number): Summarizer {
  let waiting = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    ...inner,
    async summarize(request: SummarizeRequest) {
      waiting += 1;
      if (waiting >= parties) release();
      await gate;
      return inner.summarize(request);
    },
  };
}

describe('compaction engine on the embedded stores', () => {
  it('does nothing while the trigger does not fire', async () => {
    const store = await stores();
    const { events } = threadBuilder('small').user('hello').assistant('hi').build();
    await store.events.append('tenant-1', 'small', asInputs(events));
    const engine = createCompactionEngine({
      ...store,
      summarizer: createExtractiveSummarizer(),
      clock,
      plans: store.plans,
    });
    const result = await engine.check('tenant-1', 'small');
    expect(result.trigger.fire).toBe(false);
    expect(result.commit).toEqual({ status: 'not_needed' });
    expect((await store.plans.getCurrent('tenant-1', 'small')).version).toBe(0);
  });

  it('checks a thread of a model the registry does not know, by the tokenizer family it was created with', async () => {
    const store = await stores();
    const built = threadBuilder('custom', {
      model: 'acme-coder-7b',
      contextWindow: 32_000,
      maxOutputTokens: 4_000,
    })
      .user('hello')
      .assistant('hi')
      .build();
    const [created, ...rest] = asInputs(built.events);
    // What ingest stores for `POST /v1/threads` with `tokenizerFamily`.
    const events = [{ ...created!, metadata: { [TOKENIZER_FAMILY_METADATA_KEY]: 'cl100k_base' } }, ...rest];
    await store.events.append('tenant-1', 'custom', events);
    const engine = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
    const result = await engine.check('tenant-1', 'custom');
    expect(result.trigger.fire).toBe(false);
    expect(result.commit).toEqual({ status: 'not_needed' });
  });

  it('leaves a thread with automatic compaction off to the planner, which declines; a manual request compacts', async () => {
    const store = await stores();
    const { events } = codingSession('off');
    const [created, ...rest] = asInputs(events);
    const policy = { ...(created as { policy?: object }).policy, autoCompact: false };
    await store.events.append('tenant-1', 'off', [{ ...created!, policy } as (typeof rest)[number], ...rest]);
    const engine = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
    const automatic = await engine.check('tenant-1', 'off');
    expect(automatic.trigger.fire).toBe(true);
    expect(automatic.planner?.status).toBe('disabled');
    expect(automatic.commit).toEqual({ status: 'not_needed' });
    const manual = await engine.compactThread('tenant-1', 'off', {});
    expect(manual.commit).toEqual({ status: 'committed', version: 1 });
  });

  it('compacts a long thread under its target, commits version 1 and records lifecycle events', async () => {
    const store = await stores();
    const { events, thread } = codingSession('t1');
    await store.events.append('tenant-1', 't1', asInputs(events));
    const engine = createCompactionEngine({
      events: store.events,
      plans: store.plans,
      artifacts: store.artifacts,
      lifecycle: store.lifecycle,
      summarizer: createExtractiveSummarizer(),
      clock,
    });
    const result = await engine.check('tenant-1', 't1');
    expect(result.trigger.fire).toBe(true);
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(result.planner?.status).toBe('compacted');
    expect(result.compressionRatio).toBeGreaterThan(1);

    // What the runtime renders under the committed plan fits the budget the policy implies.
    const { plan } = await store.plans.getCurrent('tenant-1', 't1');
    const tokenizer = createTokenizer({ model: thread.model });
    const rendered = renderPromptSync({
      thread,
      plan,
      system: 'You are a careful engineer.',
      tools: [],
      budget: tokenBudget({ maxInputTokens: thread.contextWindow, outputReserveTokens: 2000 }),
      provider: 'anthropic',
      tokenizer,
    });
    expect(rendered.tokens.messages).toBeLessThanOrEqual(result.planner!.targetTokens);
    // The window's share less the reserves and Compactor's own tools, present from the start (ADR-0141).
    const ownTools = compactorToolsTokens(thread.policy, tokenizer, 'anthropic');
    expect(ownTools).toBeGreaterThan(0);
    expect(result.planner!.targetTokens).toBe(Math.floor(40_000 * 0.85) - 500 - 2000 - 2000 - ownTools);
    expect(threadBudget(thread).maxInputTokens).toBe(40_000);
    const lifecycle = await store.lifecycle.list('tenant-1', 't1');
    expect(lifecycle[0]!.name).toBe('compaction_check_started');
    // The planner's run ends with compaction_completed; the engine then says the plan was committed (ADR-0183).
    expect(lifecycle.slice(-2).map((event) => event.name)).toEqual([
      'compaction_completed',
      'compaction_committed',
    ]);
    // Each event says what started it, for the inspector's plan history.
    for (const event of lifecycle) {
      expect(event.details).toMatchObject({ trigger: 'automatic', triggerReason: result.trigger.reason });
    }
    expect(result.trigger.reason.length).toBeGreaterThan(0);
    // Externalize, the least aggressive rung, was enough: the user's words are still verbatim.
    expect(result.planner!.rungsUsed).toEqual(['externalize']);
    expect(JSON.stringify(rendered.request)).toContain('Never change the public API.');
  });

  it('lets exactly one of two racing engines commit', async () => {
    const store = await stores();
    const { events } = codingSession('t1');
    await store.events.append('tenant-1', 't1', asInputs(events));
    const summarizer = barrierSummarizer(createExtractiveSummarizer(), 2);
    const make = () =>
      createCompactionEngine({ events: store.events, plans: store.plans, summarizer, clock });
    const results = await Promise.all([make().check('tenant-1', 't1'), make().check('tenant-1', 't1')]);
    const statuses = results.map((result) => result.commit.status).sort();
    expect(statuses).toEqual(['committed', 'lost_race']);
    const versions = await store.plans.listVersions('tenant-1', 't1');
    expect(versions.map((version) => version.version)).toEqual([1]);
  });

  it('does not commit a plan that misses its target and frees less than clearAtLeastTokens', async () => {
    const store = await stores();
    const builder = threadBuilder('t3', {
      contextWindow: 8000,
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        clearAtLeastTokens: 400,
        strategies: { abridge: false, externalize: false, summarize: false, clear: true, drop: false },
      },
    });
    builder.user('List the files.');
    builder.assistant(undefined, { toolCalls: [{ id: 'ls', name: 'ls', input: {} }] });
    builder.toolResult('ls', 'a.ts b.ts c.ts d.ts e.ts f.ts g.ts h.ts i.ts j.ts k.ts '.repeat(10), {
      durability: 'ephemeral',
    });
    builder.user('Now read this long paste and explain it.');
    builder.assistant(`Here is my long explanation. ${'Every detail matters here. '.repeat(1200)}`);
    await store.events.append('tenant-1', 't3', asInputs(builder.build().events));
    const engine = createCompactionEngine({
      events: store.events,
      plans: store.plans,
      clock,
      summarizer: createExtractiveSummarizer(),
    });
    const automatic = await engine.check('tenant-1', 't3');
    expect(automatic.planner?.status).toBe('target_unreachable');
    expect(automatic.planner?.added).toHaveLength(1);
    expect(automatic.planner!.tokensBefore - automatic.planner!.tokensAfter).toBeLessThan(400);
    expect(automatic.commit).toEqual({ status: 'not_needed' });
    // Asked for explicitly, whatever it frees is committed.
    const manual = await engine.compactThread('tenant-1', 't3');
    expect(manual.commit).toEqual({ status: 'committed', version: 1 });
  });

  it('compacts on request with instructions, even under target when forced', async () => {
    const store = await stores();
    const builder = threadBuilder('t2', {
      policy: { keepRecentTurns: 1, keepRecentTokens: 0, clearAtLeastTokens: 10 },
    });
    for (let turn = 1; turn <= 5; turn += 1)
      builder.user(`question ${turn} ${'about gardens '.repeat(20)}`).assistant(`answer ${turn}`);
    await store.events.append('tenant-1', 't2', asInputs(builder.build().events));
    const requests: SummarizeRequest[] = [];
    const extractive = createExtractiveSummarizer();
    const engine = createCompactionEngine({
      events: store.events,
      plans: store.plans,
      lifecycle: store.lifecycle,
      clock,
      summarizer: {
        ...extractive,
        summarize: (request) => (requests.push(request), extractive.summarize(request)),
      },
    });
    const unforced = await engine.compactThread('tenant-1', 't2', { instructions: 'keep the garden facts' });
    expect(unforced.commit).toEqual({ status: 'not_needed' });
    const forced = await engine.compactThread('tenant-1', 't2', {
      instructions: 'keep the garden facts',
      force: true,
    });
    expect(forced.commit).toEqual({ status: 'committed', version: 1 });
    expect(requests.at(-1)!.instructions).toBe('keep the garden facts');
    const completed = (await store.lifecycle.list('tenant-1', 't2')).filter(
      (event) => event.name === 'compaction_completed',
    );
    expect(completed.at(-1)!.details).toMatchObject({
      trigger: 'manual',
      triggerReason: 'compaction was requested',
    });
  });
});
