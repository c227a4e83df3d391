import { fixedClock } from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import { afterEach, describe, expect, it } from 'vitest';
import { branchThread, createCompactionEngine } from '../src/index.js';
import { type EmbeddedStores, withEmbeddedStores } from './support.js';

const clock = fixedClock('2025-06-01T00:00:00.000Z');
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A compacted coding session: plan version 1 made from every message. */
async function compactedSession(): Promise<{ store: EmbeddedStores; messageIds: string[] }> {
  const made = await withEmbeddedStores();
  cleanup = made.cleanup;
  const { events, thread } = codingSession('source');
  await made.stores.events.append('tenant-1', 'source', asInputs(events));
  const engine = createCompactionEngine({ ...made.stores, summarizer: createExtractiveSummarizer(), clock });
  expect((await engine.check('tenant-1', 'source')).commit).toEqual({ status: 'committed', version: 1 });
  return { store: made.stores, messageIds: thread.messages.map((message) => message.id) };
}

describe('branchThread', () => {
  it('keeps the source plan when branching after the compaction, restricted to the branch, and is idempotent', async () => {
    const { store, messageIds } = await compactedSession();
    const dependencies = { events: store.events, plans: store.plans, clock };
    const request = { fromMessageId: messageIds.at(-1)!, newThreadId: 'after' };
    const branch = await branchThread(dependencies, 'tenant-1', 'source', request);
    expect(branch).toMatchObject({ threadId: 'after', planVersion: 1, sourcePlanVersion: 1, created: true });
    const plan = (await store.plans.getCurrent('tenant-1', 'after')).plan!;
    expect(plan.threadId).toBe('after');
    const retry = await branchThread(dependencies, 'tenant-1', 'source', request);
    expect(retry).toMatchObject({
      threadId: 'after',
      version: branch.version,
      planVersion: 1,
      created: false,
    });
  });

  it('drops the plan when branching before the compaction, and refuses a taken id or an unknown message', async () => {
    const { store, messageIds } = await compactedSession();
    const dependencies = { events: store.events, plans: store.plans, clock };
    const early = await branchThread(dependencies, 'tenant-1', 'source', {
      fromMessageId: messageIds[2]!,
      newThreadId: 'before',
    });
    expect(early).toMatchObject({ planVersion: 0, sourcePlanVersion: null, created: true });
    await expect(
      branchThread(dependencies, 'tenant-1', 'source', {
        fromMessageId: messageIds[3]!,
        newThreadId: 'before',
      }),
    ).rejects.toMatchObject({ code: 'concurrency' });
    await expect(
      branchThread(dependencies, 'tenant-1', 'source', { fromMessageId: 'no-such-message' }),
    ).rejects.toMatchObject({ code: 'validation' });
  });
});
