import { fixedClock } from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterEach, describe, expect, it } from 'vitest';
import { type CompactionEngineOptions, createCompactionEngine } from '../src/index.js';
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
