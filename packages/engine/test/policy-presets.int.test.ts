import { fixedClock, normalizePlan, type PolicyPresetName } from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/index.js';
import { withEmbeddedStores } from './support.js';

/** Each policy preset (ADR-0106) run by name through engine.check on the embedded stores. */
const clock = fixedClock('2025-06-01T00:00:00.000Z');
const TENANT = 'tenant-1';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** `turns` turns whose answers repeat a varied sentence `answerRepeats` times. */
async function presetThread(
  preset: PolicyPresetName,
  options: { turns: number; answerRepeats: number; contextWindow?: number },
) {
  const { stores, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  const builder = threadBuilder('preset', {
    contextWindow: options.contextWindow ?? 200_000,
    policy: { preset } as never,
  });
  for (let turn = 1; turn <= options.turns; turn += 1) {
    builder
      .user(`Turn ${turn}: what changed in module ${turn}?`)
      .assistant(
        Array.from(
          { length: options.answerRepeats },
          (_, line) => `Module ${turn} line ${line}: handler_${turn}_${line} now retries ${line % 7} times.`,
        ).join(' '),
      );
  }
  await stores.events.append(TENANT, 'preset', asInputs(builder.build().events));
  const engine = createCompactionEngine({ ...stores, summarizer: createExtractiveSummarizer(), clock });
  const visible = async () => {
    const { plan } = await stores.plans.getCurrent(TENANT, 'preset');
    const normalized = normalizePlan(plan!);
    const messages = (await stores.events.readAll(TENANT, 'preset')).filter(
      (event) => event.type === 'message.appended',
    );
    return {
      real: messages.filter((event) => !normalized.actions.has(event.message.id)).length,
      summaries: normalized.records.filter((record) => record.kind === 'summarize').length,
    };
  };
  return { engine, visible };
}

describe('policy presets through engine.check', () => {
  it('seed-004-sliding: 25 turns on a 200k window keep the last 10 events (the probe of the bug)', async () => {
    const { engine, visible } = await presetThread('seed-004-sliding', { turns: 25, answerRepeats: 3 });
    const result = await engine.check(TENANT, 'preset');
    expect(result.trigger.trigger).toBe('turns>20');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(await visible()).toEqual({ real: 10, summaries: 0 });
  });

  it('seed-004-sliding: 20 turns do not fire', async () => {
    const { engine } = await presetThread('seed-004-sliding', { turns: 20, answerRepeats: 3 });
    expect((await engine.check(TENANT, 'preset')).commit).toEqual({ status: 'not_needed' });
  });

  it('seed-004-recursive: one rolling summary and the last 10 events', async () => {
    const { engine, visible } = await presetThread('seed-004-recursive', { turns: 25, answerRepeats: 3 });
    expect((await engine.check(TENANT, 'preset')).commit).toEqual({ status: 'committed', version: 1 });
    expect(await visible()).toEqual({ real: 10, summaries: 1 });
  });

  it('seed-000: nothing below 80,000 tokens; above, a summary and the last 10 messages', async () => {
    const small = await presetThread('seed-000', { turns: 30, answerRepeats: 20 });
    const quiet = await small.engine.check(TENANT, 'preset');
    expect(quiet.trigger.fire).toBe(false);
    const large = await presetThread('seed-000', { turns: 30, answerRepeats: 200 });
    const result = await large.engine.check(TENANT, 'preset');
    expect(result.planner!.tokensBefore).toBeGreaterThanOrEqual(80_000);
    expect(result.planner!.tokensBefore).toBeLessThan(result.planner!.targetTokens);
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(await large.visible()).toEqual({ real: 10, summaries: 1 });
  });

  it('seed-003: fires at 93,600 message tokens on a 128k window, keeps the last 10 messages', async () => {
    const { engine, visible } = await presetThread('seed-003', {
      turns: 30,
      answerRepeats: 220,
      contextWindow: 128_000,
    });
    const result = await engine.check(TENANT, 'preset');
    expect(result.trigger.trigger).toBe('tokens>=93600');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(await visible()).toEqual({ real: 10, summaries: 1 });
  });

  it('pi: over window − 16,384 it summarizes everything older than the newest 20,000 tokens (ADR-0186)', async () => {
    const { engine, visible } = await presetThread('pi', {
      turns: 30,
      answerRepeats: 220,
      contextWindow: 100_000,
    });
    const result = await engine.check(TENANT, 'preset');
    expect(result.planner!.targetTokens).toBe(100_000 - 16_384);
    expect(result.trigger.fire).toBe(true);
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(result.planner!.reason).toMatch(/^recursive summarization of \d+ messages$/);
    expect(result.planner!.tokensAfter).toBeLessThanOrEqual(result.planner!.targetTokens);
    const { real, summaries } = await visible();
    expect(summaries).toBe(1);
    expect(real).toBeGreaterThan(0);
  });
});

describe('a failed recursive summary in the running service', () => {
  it('leaves the history unchanged, calls the hook and records compaction_failed', async () => {
    const { stores, cleanup } = await withEmbeddedStores();
    cleanups.push(cleanup);
    const builder = threadBuilder('failing', { policy: { preset: 'seed-004-recursive' } as never });
    for (let turn = 1; turn <= 25; turn += 1) builder.user(`question ${turn}`).assistant(`answer ${turn}`);
    await stores.events.append(TENANT, 'failing', asInputs(builder.build().events));
    const failures: unknown[] = [];
    const extractive = createExtractiveSummarizer();
    const engine = createCompactionEngine({
      ...stores,
      summarizer: {
        ...extractive,
        summarize: () => Promise.reject(new Error('the summary model is down')),
      },
      clock,
      onSummarizationFailure: (failure) => failures.push(failure),
    });
    const result = await engine.check(TENANT, 'failing');
    expect(result.trigger.fire).toBe(true);
    expect(result.commit).toEqual({ status: 'not_needed' });
    expect(failures).toEqual([
      { tenantId: TENANT, threadId: 'failing', error: new Error('the summary model is down') },
    ]);
    const events = await stores.lifecycle.list(TENANT, 'failing');
    expect(events.map((event) => [event.name, event.strategy, event.details?.error])).toEqual([
      ['compaction_failed', 'recursive-summarization', 'the summary model is down'],
    ]);
  });
});

describe('manual compaction under a preset', () => {
  it('an unforced request compacts when the thread’s trigger fires, and not when it does not', async () => {
    const fired = await presetThread('seed-004-sliding', { turns: 25, answerRepeats: 3 });
    const result = await fired.engine.compactThread(TENANT, 'preset');
    expect(result.trigger.children?.[0]?.trigger).toBe('turns>20');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    const quiet = await presetThread('seed-004-sliding', { turns: 20, answerRepeats: 3 });
    expect((await quiet.engine.compactThread(TENANT, 'preset')).commit).toEqual({ status: 'not_needed' });
  });
});
