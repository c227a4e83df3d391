import { compactionPlanSchema, fixedClock, noopLogger } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, type EmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

describe('the embedded plan store hands out one frozen current plan per version (issue #18)', () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  let stores: EmbeddedStores;
  const clock = fixedClock('2025-03-01T00:00:00.000Z');

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
    stores = await createEmbeddedStores({ dataDir, clock, logger: noopLogger });
  });

  afterEach(async () => {
    await stores.close();
    await remove();
  });

  it('returns the same object until the next commit, frozen at every depth, and never the caller’s', async () => {
    await stores.events.append('t', 'th', [
      { eventId: 'c', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
    ]);
    const mine = compactionPlanSchema.parse({
      threadId: 'th',
      version: 0,
      basedOnSeq: 1,
      createdAt: '2025-03-01T00:00:00.000Z',
      drops: [{ kind: 'drop', span: { messageIds: ['m1'], firstTurn: 1, lastTurn: 1 }, reason: 'old' }],
    });
    await stores.plans.commit('t', 'th', mine, 0);
    const first = (await stores.plans.getCurrent('t', 'th')).plan!;
    const second = (await stores.plans.getCurrent('t', 'th')).plan!;
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.drops[0]!.span.messageIds)).toBe(true);
    expect(() => first.drops.push(first.drops[0]!)).toThrow(TypeError);
    // The caller's plan is not frozen, and changing it changes nothing stored.
    expect(Object.isFrozen(mine.drops)).toBe(false);
    mine.drops.length = 0;
    expect((await stores.plans.getCurrent('t', 'th')).plan!.drops).toHaveLength(1);

    await stores.plans.commit('t', 'th', { ...mine, basedOnSeq: 1 }, 1);
    const next = (await stores.plans.getCurrent('t', 'th')).plan!;
    expect(next).not.toBe(first);
    expect(next.version).toBe(2);
  });

  it('freezes a plan read back after a restart', async () => {
    await stores.events.append('t', 'th', [
      { eventId: 'c', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
    ]);
    await stores.plans.commit(
      't',
      'th',
      compactionPlanSchema.parse({
        threadId: 'th',
        version: 0,
        basedOnSeq: 1,
        createdAt: '2025-03-01T00:00:00.000Z',
      }),
      0,
    );
    await stores.close();
    stores = await createEmbeddedStores({ dataDir, clock, logger: noopLogger });
    const plan = (await stores.plans.getCurrent('t', 'th')).plan!;
    expect(Object.isFrozen(plan)).toBe(true);
    expect((await stores.plans.getCurrent('t', 'th')).plan).toBe(plan);
  });
});
