import { fixedClock } from '@compactor/core';
import { validateProviderRequest } from '@compactor/render/validate';
import {
  createAnthropicSummarizer,
  createExtractiveSummarizer,
  createResilientSummarizer,
  SUMMARY_TOOL_NAME,
} from '@compactor/summarizer';
import { errorResponse, startFakeMessagesApi, toolUseResponse } from '@compactor/testkit/fake-messages-api';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { afterEach, describe, expect, it } from 'vitest';
import { type CompactionEngineOptions, createCompactionEngine, createCompactor } from '../src/index.js';
import { withEmbeddedStores } from './support.js';

/** Seed requirements through engine.check on the embedded stores (docs/SEEDS.md). */
const clock = fixedClock('2025-06-01T00:00:00.000Z');
const TENANT = 'tenant-1';
let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function seededThread(
  policy: Record<string, unknown>,
  turns: number,
  engineOptions: Partial<CompactionEngineOptions> = {},
  contextWindow = 200_000,
) {
  const { stores, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  const builder = threadBuilder('seed', { contextWindow, policy: policy as never });
  for (let turn = 1; turn <= 60; turn += 1) {
    builder
      .user(`Turn ${turn}: what changed in module ${turn}?`)
      .assistant(`Module ${turn} now retries three times.`);
  }
  const all = asInputs(builder.build().events);
  const events = all.slice(0, 1 + turns * 2);
  await stores.events.append(TENANT, 'seed', events);
  /** Append turns `from`..`to` (up to 60). */
  const appendTurns = (from: number, to: number) =>
    stores.events.append(TENANT, 'seed', all.slice(1 + (from - 1) * 2, 1 + to * 2));
  const engine = createCompactionEngine({
    ...stores,
    summarizer: createExtractiveSummarizer(),
    clock,
    ...engineOptions,
  });
  const messageIds = all.flatMap((event) => (event.type === 'message.appended' ? [event.message.id] : []));
  return { stores, engine, messageIds, appendTurns };
}

describe('seed 004: the compaction result', () => {
  it('returns the archived and kept messages and the tokens saved', async () => {
    const { engine, messageIds } = await seededThread({ preset: 'seed-004-sliding' }, 25);
    const result = await engine.check(TENANT, 'seed');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(result.outcome).toEqual({
      archivedMessageIds: messageIds.slice(0, 40),
      keptMessageIds: messageIds.slice(40, 50),
      tokensSaved: result.planner!.tokensBefore - result.planner!.tokensAfter,
    });
    expect(result.outcome!.tokensSaved).toBeGreaterThan(0);
  });

  it('a second compaction archives only what the first one kept', async () => {
    const { engine, messageIds, appendTurns } = await seededThread({ preset: 'seed-004-sliding' }, 25);
    await engine.check(TENANT, 'seed');
    await appendTurns(26, 46);
    const second = await engine.check(TENANT, 'seed');
    expect(second.commit).toEqual({ status: 'committed', version: 2 });
    expect(second.outcome!.keptMessageIds).toEqual(messageIds.slice(82, 92));
    expect(second.outcome!.archivedMessageIds).toEqual(messageIds.slice(40, 82));
  });

  it('is null when nothing was committed', async () => {
    const { engine } = await seededThread({ preset: 'seed-004-sliding' }, 5);
    expect((await engine.check(TENANT, 'seed')).outcome).toBeNull();
  });
});

const goodSummary = {
  currentTask: 'Finish the retry work',
  facts: ['Every module now retries three times'],
  decisions: [{ decision: 'Retry three times' }],
  openItems: [],
  currentPlan: ['ship it'],
  filesRead: [],
  filesModified: [],
  toolOutcomes: [],
};

/** The real Anthropic summarizer (behind the resilient chain) against the fake Messages API. */
async function fakeModel(answer: 'summary' | 'failure') {
  const api = await startFakeMessagesApi();
  cleanups.push(() => api.close());
  api.setFallback(
    answer === 'summary' ? toolUseResponse(SUMMARY_TOOL_NAME, goodSummary) : errorResponse(500, 'api_error'),
  );
  const summarizer = createResilientSummarizer({
    primary: createAnthropicSummarizer({ apiKey: 'test', baseURL: api.url, attempts: 1, baseDelayMs: 1 }),
  });
  return { api, summarizer };
}

describe('pi: the summarizer call’s max_tokens is 0.8 × reserveTokens', () => {
  it('sends max_tokens 13,107 to the model under the pi preset, and the deployment’s default otherwise', async () => {
    const { api, summarizer } = await fakeModel('summary');
    const big = 'Module retries are now three, with a backoff of two seconds each time. '.repeat(60);
    const run = async (policy: Record<string, unknown>) => {
      const { stores, cleanup } = await withEmbeddedStores();
      cleanups.push(cleanup);
      const builder = threadBuilder('pi', { contextWindow: 60_000, policy: policy as never });
      for (let turn = 1; turn <= 40; turn += 1)
        builder.user(`Turn ${turn}: go on.`).assistant(`${turn}: ${big}`);
      await stores.events.append(TENANT, 'pi', asInputs(builder.build().events));
      const engine = createCompactionEngine({ ...stores, summarizer, clock });
      return engine.check(TENANT, 'pi', { manual: { force: true } });
    };
    expect((await run({ preset: 'pi' })).commit.status).toBe('committed');
    const piCalls = api.requests.map((request) => (request.body as { max_tokens: number }).max_tokens);
    expect(piCalls.length).toBeGreaterThan(0);
    expect(new Set(piCalls)).toEqual(new Set([13_107]));
    api.requests.length = 0;
    expect((await run({})).commit.status).toBe('committed');
    expect(
      new Set(api.requests.map((request) => (request.body as { max_tokens: number }).max_tokens)),
    ).toEqual(new Set([4096]));
  });
});

describe('seed 004: systemPrompt for recursive summarization', () => {
  it('is the system prompt of the summarizer call', async () => {
    const { api, summarizer } = await fakeModel('summary');
    const { engine } = await seededThread(
      {
        preset: 'seed-004-recursive',
        mode: {
          kind: 'recursive-summarization',
          maxEventsToKeep: 10,
          overlapSize: 2,
          systemPrompt: 'Summarize for an auditor.',
        },
      },
      25,
      { summarizer },
    );
    expect((await engine.check(TENANT, 'seed')).commit.status).toBe('committed');
    expect(api.requests.map((request) => (request.body as { system: string }).system)).toEqual([
      'Summarize for an auditor.',
    ]);
  });
});

describe('seed 003: onSummaryFailure', () => {
  it('leave-unchanged (the seed-003 preset): a failing model compacts nothing and is reported', async () => {
    const { summarizer } = await fakeModel('failure');
    const failures: unknown[] = [];
    const { engine, stores } = await seededThread(
      { preset: 'seed-003', trigger: { kind: 'turns', maxTurns: 20 } },
      25,
      { summarizer, onSummarizationFailure: (failure) => failures.push(failure) },
    );
    const result = await engine.check(TENANT, 'seed');
    expect(result.trigger.fire).toBe(true);
    expect(result.commit).toEqual({ status: 'not_needed' });
    expect((await stores.plans.getCurrent(TENANT, 'seed')).plan).toBeNull();
    expect(failures).toHaveLength(1);
    expect((await stores.lifecycle.list(TENANT, 'seed')).map((event) => event.name)).toEqual([
      'compaction_failed',
    ]);
  });

  it('fallback (the default): the same failure commits the extractive summary', async () => {
    const { summarizer } = await fakeModel('failure');
    const { engine, stores } = await seededThread(
      // The structured format: the template's headings alone outweigh these 40 one-line messages.
      {
        preset: 'seed-003',
        trigger: { kind: 'turns', maxTurns: 20 },
        onSummaryFailure: 'fallback',
        summaryStyle: { format: 'structured' },
      },
      25,
      { summarizer },
    );
    expect((await engine.check(TENANT, 'seed')).commit).toEqual({ status: 'committed', version: 1 });
    const { plan } = await stores.plans.getCurrent(TENANT, 'seed');
    expect(plan!.summarizations[0]!.summarizer?.id).toMatch(/^extractive/);
  });

  it('leave-unchanged under the ladder: the summarize rung summarizes nothing', async () => {
    const { summarizer } = await fakeModel('failure');
    const big = 'Module retries are now three, with a backoff of two seconds each time. '.repeat(60);
    const { stores, cleanup } = await withEmbeddedStores();
    cleanups.push(cleanup);
    const builder = threadBuilder('ladder', {
      contextWindow: 60_000,
      policy: { preset: 'pi', mode: { kind: 'ladder' }, onSummaryFailure: 'leave-unchanged' } as never,
    });
    for (let turn = 1; turn <= 40; turn += 1)
      builder.user(`Turn ${turn}: go on.`).assistant(`${turn}: ${big}`);
    await stores.events.append(TENANT, 'ladder', asInputs(builder.build().events));
    const engine = createCompactionEngine({ ...stores, summarizer, clock });
    const result = await engine.check(TENANT, 'ladder', { manual: { force: true } });
    expect(result.planner!.added).toEqual([]);
    expect(result.commit).toEqual({ status: 'not_needed' });
  });
});

describe('pi: the global /autocompact switch (ADR-0183)', () => {
  it('autoCompact false on the engine: no trigger fires, whatever the policy; /compact still runs', async () => {
    const { engine } = await seededThread({ preset: 'seed-004-sliding' }, 25, { autoCompact: false });
    const automatic = await engine.check(TENANT, 'seed');
    expect(automatic.trigger).toMatchObject({ fire: false, trigger: 'deployment' });
    expect(automatic.commit).toEqual({ status: 'not_needed' });
    const manual = await engine.compactThread(TENANT, 'seed', { force: true });
    expect(manual.commit).toEqual({ status: 'committed', version: 1 });
  });

  it('a committed plan is told as compaction_committed; a check that commits nothing says nothing', async () => {
    const { engine, stores } = await seededThread({ preset: 'seed-004-sliding' }, 25);
    const result = await engine.check(TENANT, 'seed');
    await engine.check(TENANT, 'seed');
    const told = (await stores.lifecycle.list(TENANT, 'seed')).filter(
      (event) => event.name === 'compaction_committed',
    );
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      tokensFreed: result.outcome!.tokensSaved,
      strategy: 'sliding-window',
      details: { planVersion: 1, trigger: 'automatic', archivedMessages: 40, keptMessages: 10 },
    });
  });
});

describe('seed 003: the threshold follows the window (ADR-0184)', () => {
  it('fires at (window − 11,000) × 0.8: on a 32k window at 16,800 tokens, not on a 128k window', async () => {
    const big = 'The retry loop backs off twice, then reports the failure to the caller. '.repeat(40);
    const run = async (contextWindow: number) => {
      const { stores, cleanup } = await withEmbeddedStores();
      cleanups.push(cleanup);
      const builder = threadBuilder('w', { contextWindow, policy: { preset: 'seed-003' } as never });
      for (let turn = 1; turn <= 30; turn += 1)
        builder.user(`Turn ${turn}: go on.`).assistant(`${turn}: ${big}`);
      await stores.events.append(TENANT, 'w', asInputs(builder.build().events));
      return createCompactionEngine({ ...stores, summarizer: createExtractiveSummarizer(), clock }).check(
        TENANT,
        'w',
      );
    };
    const small = await run(32_000);
    expect(small.trigger).toMatchObject({ fire: true, trigger: 'tokens>=16800' });
    expect(small.commit).toEqual({ status: 'committed', version: 1 });
    const large = await run(128_000);
    expect(large.trigger).toMatchObject({ fire: false, trigger: 'tokens>=93600' });
  });
});

describe('summary styles (ADR-0185): pi, seed 003 and seed 004 as their presets say', () => {
  async function rendered(policy: Record<string, unknown>, rounds: number) {
    const { stores, cleanup } = await withEmbeddedStores();
    cleanups.push(cleanup);
    const builder = threadBuilder('styled', { policy: policy as never });
    for (let turn = 1; turn <= 60; turn += 1) {
      builder
        .user(`Turn ${turn}: what changed in module ${turn}?`)
        .assistant(`Module ${turn} now retries three times.`);
    }
    const all = asInputs(builder.build().events);
    const compactor = createCompactor({
      stores,
      summarizer: createExtractiveSummarizer(),
      clock,
      tenantId: TENANT,
      compaction: 'background',
    });
    const engine = createCompactionEngine({ ...stores, summarizer: createExtractiveSummarizer(), clock });
    await stores.events.append(TENANT, 'styled', all.slice(0, 1 + 25 * 2));
    for (let round = 1; round <= rounds; round += 1) {
      if (round > 1)
        await stores.events.append(
          TENANT,
          'styled',
          all.slice(1 + (25 + (round - 2) * 21) * 2, 1 + (25 + (round - 1) * 21) * 2),
        );
      expect((await engine.compactThread(TENANT, 'styled', { force: true })).commit.status).toBe('committed');
    }
    const prepared = await compactor.prepare('styled', { provider: 'anthropic' });
    expect(validateProviderRequest('anthropic', prepared.request).valid).toBe(true);
    return prepared.request.messages as Array<{
      role: string;
      content: Array<{ type: string; text?: string }>;
    }>;
  }
  const text = (message: { content: Array<{ text?: string }> } | undefined) =>
    (message?.content ?? []).map((part) => part.text ?? '').join('');

  it('seed-004-recursive: the [user shadow, assistant summary] pair, with the mode’s shadowPrompt', async () => {
    const messages = await rendered(
      {
        preset: 'seed-004-recursive',
        mode: {
          kind: 'recursive-summarization',
          maxEventsToKeep: 10,
          overlapSize: 2,
          shadowPrompt: 'What happened before?',
        },
      },
      1,
    );
    expect(messages[0]).toMatchObject({ role: 'user' });
    expect(text(messages[0])).toBe('What happened before?');
    expect(messages[1]).toMatchObject({ role: 'assistant' });
    expect(text(messages[1])).toMatch(/^\[Context Summary - Turns 1-20\]/);
    expect(text(messages[2])).toMatch(/^Turn 21:/);
  });

  it('pi: one user message opened by pi’s prefix', async () => {
    const messages = await rendered(
      { preset: 'seed-004-recursive', summaryStyle: { message: 'user-prefixed' } },
      1,
    );
    expect(messages[0]!.role).toBe('user');
    expect(text(messages[0])).toMatch(
      /^Another language model worked on this task and produced a summary\. Use this to continue the work without duplicating effort:\n\n\[Context Summary/,
    );
  });

  it('seed-003: the "## Session Summary" template with its round', async () => {
    const messages = await rendered({ preset: 'seed-003', trigger: { kind: 'turns', maxTurns: 20 } }, 2);
    const summary = text(messages[0]);
    expect(summary).toMatch(/^## Session Summary \(Compaction Round 2\)\n\n### Original Task\n/);
    expect(summary).toContain('### Key Technical Decisions');
    expect(summary).toContain('### Pending Work');
    expect(summary).toContain('This summary incorporates context from 1 previous compaction rounds.');
  });

  it('the default stays Compactor’s assistant message', async () => {
    const messages = await rendered(
      { preset: 'seed-004-sliding', mode: { kind: 'recursive-summarization', maxEventsToKeep: 10 } },
      1,
    );
    // Opening the conversation, the default summary is sent as user with its own bracketed prefix.
    expect(text(messages[0])).toMatch(/^\[Context Summary - Turns 1-20\]/);
    expect(text(messages[1])).toMatch(/^Turn 21:/);
  });
});

describe('seed 000: the summary fields table', () => {
  it('key facts, original and compressed tokens, compression ratio and cost, through engine.check', async () => {
    const api = await startFakeMessagesApi();
    cleanups.push(() => api.close());
    api.setFallback(
      toolUseResponse(SUMMARY_TOOL_NAME, goodSummary, { input_tokens: 20_000, output_tokens: 400 }),
    );
    const summarizer = createResilientSummarizer({
      primary: createAnthropicSummarizer({ apiKey: 'test', baseURL: api.url, attempts: 1, baseDelayMs: 1 }),
    });
    const { stores, cleanup } = await withEmbeddedStores();
    cleanups.push(cleanup);
    const builder = threadBuilder('fields', { policy: { preset: 'seed-000' } as never });
    const line = 'The retry loop in module alpha now backs off exponentially. '.repeat(400);
    for (let turn = 1; turn <= 30; turn += 1)
      builder.user(`Turn ${turn}: go on.`).assistant(`${turn}: ${line}`);
    await stores.events.append(TENANT, 'fields', asInputs(builder.build().events));
    const engine = createCompactionEngine({ ...stores, summarizer, clock });
    const result = await engine.check(TENANT, 'fields');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    const { plan } = await stores.plans.getCurrent(TENANT, 'fields');
    const record = plan!.summarizations[0]!;
    // Key facts: what the model wrote, plus the structural part the chain guarantees.
    expect(record.summary.facts.map((fact) => fact.text)).toContain('Every module now retries three times');
    // Original and compressed tokens, and their ratio.
    expect(plan!.originalTokenCount).toBe(result.planner!.tokensBefore);
    expect(plan!.compactedTokenCount).toBe(result.planner!.tokensAfter);
    expect(plan!.originalTokenCount).toBeGreaterThanOrEqual(80_000);
    expect(result.compressionRatio).toBeCloseTo(plan!.originalTokenCount! / plan!.compactedTokenCount!, 6);
    expect(result.compressionRatio).toBeGreaterThan(5);
    // Cost: priced from the usage the model reported.
    expect(record.summarizer?.costUsd).toBeGreaterThan(0);
    expect(result.planner!.summarizerCostUsd).toBe(record.summarizer?.costUsd);
  });
});

describe('pi: keepRecentTokens kept verbatim, everything older summarized (ADR-0186)', () => {
  it('one summary; the kept suffix starts at a user message and fits 20,000 tokens', async () => {
    const { stores, cleanup } = await withEmbeddedStores();
    cleanups.push(cleanup);
    const builder = threadBuilder('pi', { contextWindow: 100_000, policy: { preset: 'pi' } as never });
    const line = 'Module retries are now three, with a backoff of two seconds each time. '.repeat(60);
    for (let turn = 1; turn <= 120; turn += 1)
      builder.user(`Turn ${turn}: go on.`).assistant(`${turn}: ${line}`);
    const events = builder.build().events;
    await stores.events.append(TENANT, 'pi', asInputs(events));
    const engine = createCompactionEngine({ ...stores, summarizer: createExtractiveSummarizer(), clock });
    const result = await engine.check(TENANT, 'pi');
    expect(result.trigger.fire).toBe(true);
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    const { plan } = await stores.plans.getCurrent(TENANT, 'pi');
    expect(plan!.summarizations).toHaveLength(1);
    const kept = result.outcome!.keptMessageIds;
    const byId = new Map(
      events.flatMap((event) =>
        event.type === 'message.appended' ? [[event.message.id, event.message]] : [],
      ),
    );
    expect(byId.get(kept[0]!)!.role).toBe('user');
    // Everything older than the kept suffix is in the one summary.
    expect(result.outcome!.archivedMessageIds.length + kept.length).toBe(240);
    const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
    const keptTokens = kept.reduce(
      (total, id) => total + tokenizer.countMessage(byId.get(id)! as never, 'anthropic'),
      0,
    );
    expect(keptTokens).toBeLessThanOrEqual(20_000);
    // One more turn would not fit: the suffix is as long as 20,000 tokens allow, at a turn start.
    expect(keptTokens).toBeGreaterThan(
      20_000 - 4 * tokenizer.countMessage(byId.get(kept[1]!)! as never, 'anthropic'),
    );
  });
});
