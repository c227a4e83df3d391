import {
  type CompactionPlan,
  emptyPlan,
  fixedClock,
  foldThread,
  spanOf,
  type ThreadMessage,
} from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine, createThreadFoldCache } from '../src/index.js';
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

function conversation(id: string, turns: number) {
  const builder = threadBuilder(id, { tenantId: 'tenant-1' });
  for (let turn = 0; turn < turns; turn += 1) builder.user(`question ${turn}`).assistant(`answer ${turn}`);
  return builder.build().events;
}

function appended(seq: number, messageId: string) {
  return {
    eventId: `e-${messageId}`,
    type: 'message.appended' as const,
    message: {
      id: messageId,
      role: 'user' as const,
      content: [{ type: 'text' as const, text: `later ${seq}` }],
    },
  };
}

describe('ThreadFoldCache (ADR-0121)', () => {
  it('folds the whole log once, then reads only the events appended since', async () => {
    const store = await stores();
    const events = conversation('long', 40);
    await store.events.append('tenant-1', 'long', asInputs(events));
    const folds = createThreadFoldCache();
    const first = await folds.load(store.events, 'tenant-1', 'long');
    expect(first).toEqual(foldThread(await store.events.readAll('tenant-1', 'long')));
    expect(folds.stats).toMatchObject({ rebuilds: 1, eventsRead: events.length, threads: 1 });

    expect(await folds.load(store.events, 'tenant-1', 'long')).toBe(first);
    expect(folds.stats).toMatchObject({ hits: 1, eventsRead: events.length });

    await store.events.append('tenant-1', 'long', [appended(1, 'late-1')]);
    const after = await folds.load(store.events, 'tenant-1', 'long');
    expect(folds.stats).toMatchObject({ rebuilds: 1, extended: 1, eventsRead: events.length + 1 });
    expect(after).toEqual(foldThread(await store.events.readAll('tenant-1', 'long')));
    // The fold handed out before is unchanged: loads never mutate what they returned.
    expect(first.messages).toHaveLength(80);
    expect(after.messages).toHaveLength(81);
  });

  it("grows the kept fold's message array in place, and a thread handed out before reads what it read (ADR-0375)", async () => {
    const store = await stores();
    await store.events.append('tenant-1', 'grown', asInputs(conversation('grown', 30)));
    const folds = createThreadFoldCache();
    const first = await folds.load(store.events, 'tenant-1', 'grown');
    const array = first.messages;
    const firstJson = JSON.stringify(first);
    for (let step = 1; step <= 3; step += 1) {
      await store.events.append('tenant-1', 'grown', [appended(step, `grown-late-${step}`)]);
      const later = await folds.load(store.events, 'tenant-1', 'grown');
      // No copy of the history: the newest thread reads the same array, one message longer.
      expect(later.messages).toBe(array);
      expect(later.messages).toHaveLength(60 + step);
      expect(later).toEqual(foldThread(await store.events.readAll('tenant-1', 'grown')));
    }
    expect(first.messages).not.toBe(array);
    expect(first.messages).toHaveLength(60);
    expect(JSON.stringify(first)).toBe(firstJson);
  });

  it('tolerates events that are not messages (plan commits, lifecycle, policy updates)', async () => {
    const store = await stores();
    await store.events.append('tenant-1', 'mixed', asInputs(conversation('mixed', 3)));
    const folds = createThreadFoldCache();
    await folds.load(store.events, 'tenant-1', 'mixed');
    await store.events.append('tenant-1', 'mixed', [
      {
        eventId: 'pc',
        type: 'plan.committed',
        planVersion: 1,
        basedOnSeq: 7,
        tokensBefore: 90,
        tokensAfter: 30,
      },
      { eventId: 'lc', type: 'lifecycle', name: 'compaction_completed', details: {} },
      { eventId: 'pu', type: 'policy.updated', patch: { keepRecentTurns: 1 } },
      appended(2, 'late-2'),
    ]);
    const thread = await folds.load(store.events, 'tenant-1', 'mixed');
    expect(thread).toEqual(foldThread(await store.events.readAll('tenant-1', 'mixed')));
    expect(thread.policy.keepRecentTurns).toBe(1);
  });

  it('stays within its byte bound, dropping the least recently loaded thread, and rebuilds a dropped one once', async () => {
    const store = await stores();
    for (const id of ['a', 'b', 'c'])
      await store.events.append('tenant-1', id, asInputs(conversation(id, 30)));
    const probe = createThreadFoldCache();
    await probe.load(store.events, 'tenant-1', 'a');
    const oneThread = probe.stats.bytes;
    expect(oneThread).toBeGreaterThan(0);

    const folds = createThreadFoldCache({ maxBytes: Math.floor(oneThread * 2.5) });
    for (const id of ['a', 'b', 'c']) await folds.load(store.events, 'tenant-1', id);
    expect(folds.stats.threads).toBe(2);
    expect(folds.stats.evictions).toBe(1);
    expect(folds.stats.bytes).toBeLessThanOrEqual(folds.stats.maxBytes);
    await folds.load(store.events, 'tenant-1', 'a');
    expect(folds.stats.rebuilds).toBe(4);
    await folds.load(store.events, 'tenant-1', 'a');
    expect(folds.stats.rebuilds).toBe(4);
  });

  it('keeps tenants apart and never keeps the absence of a thread', async () => {
    const store = await stores();
    await store.events.append('tenant-1', 'same', asInputs(conversation('same', 2)));
    const folds = createThreadFoldCache();
    await folds.load(store.events, 'tenant-1', 'same');
    await expect(folds.load(store.events, 'tenant-2', 'same')).rejects.toThrow(/not found|same/i);
    expect(folds.stats.threads).toBe(1);
  });

  it('lets an engine check after one append read one event, with the same outcome as a fresh engine', async () => {
    const store = await stores();
    await store.events.append('tenant-1', 'checked', asInputs(conversation('checked', 20)));
    const folds = createThreadFoldCache();
    const engine = createCompactionEngine({
      ...store,
      summarizer: createExtractiveSummarizer(),
      clock,
      folds,
    });
    await engine.check('tenant-1', 'checked');
    const read = folds.stats.eventsRead;
    await store.events.append('tenant-1', 'checked', [appended(3, 'late-3')]);
    const warm = await engine.check('tenant-1', 'checked');
    expect(folds.stats.eventsRead).toBe(read + 1);
    const fresh = await createCompactionEngine({
      ...store,
      summarizer: createExtractiveSummarizer(),
      clock,
    }).check('tenant-1', 'checked');
    expect(warm).toEqual(fresh);
  });

  it('keeps what the committed plan hides in compact form: the same thread, fewer bytes (ADR-0285)', async () => {
    const store = await stores();
    await store.events.append('tenant-1', 'hidden', asInputs(conversation('hidden', 30)));
    const full = foldThread(await store.events.readAll('tenant-1', 'hidden'));
    const older = full.messages.slice(0, 40);
    await store.plans.commit('tenant-1', 'hidden', planDropping('hidden', full.version, older), 0);
    const { plan } = await store.plans.getCurrent('tenant-1', 'hidden');

    const plain = createThreadFoldCache();
    await plain.load(store.events, 'tenant-1', 'hidden');
    const folds = createThreadFoldCache();
    const loaded = await folds.load(store.events, 'tenant-1', 'hidden', plan);
    expect(loaded).toEqual(full);
    expect(JSON.stringify(loaded)).toBe(JSON.stringify(full));
    expect(folds.stats.compactedMessages).toBe(40);
    expect(folds.stats.bytes).toBeLessThan(plain.stats.bytes);

    // A warm load with the same plan does not pass over the messages again; an append stays one event.
    expect(await folds.load(store.events, 'tenant-1', 'hidden', plan)).toBe(loaded);
    await store.events.append('tenant-1', 'hidden', [appended(1, 'late-1')]);
    const extended = await folds.load(store.events, 'tenant-1', 'hidden', plan);
    expect(extended).toEqual(foldThread(await store.events.readAll('tenant-1', 'hidden')));
    expect(folds.stats).toMatchObject({ rebuilds: 1, extended: 1, compactedMessages: 40 });

    // A fold kept without a plan is compacted on the next load that brings one.
    await plain.load(store.events, 'tenant-1', 'hidden', plan);
    expect(plain.stats).toMatchObject({ rebuilds: 1, compactedMessages: 40 });
    expect(plain.stats.bytes).toBe(folds.stats.bytes);
  });

  it('plans a thread held in compact form exactly as a thread folded in full (ADR-0285)', async () => {
    const compacting = await stores();
    const refolding = await stores();
    const builder = threadBuilder('planned', { tenantId: 'tenant-1', contextWindow: 16_000 });
    for (let turn = 0; turn < 60; turn += 1) {
      builder.user(`question ${turn}: ${'why does the parser fail here '.repeat(8)}`);
      builder.assistant(`answer ${turn}: ${'the parser skips a token at the end '.repeat(10)}`);
    }
    const events = builder.build().events;
    const full = foldThread(events);
    for (const store of [compacting, refolding]) {
      await store.events.append('tenant-1', 'planned', asInputs(events));
      await store.plans.commit(
        'tenant-1',
        'planned',
        planDropping('planned', full.version, full.messages.slice(0, 20)),
        0,
      );
    }
    const folds = createThreadFoldCache();
    const summarizer = createExtractiveSummarizer();
    const engine = createCompactionEngine({ ...compacting, summarizer, clock, folds });
    const peer = createCompactionEngine({
      ...refolding,
      summarizer,
      clock,
      folds: createThreadFoldCache({ maxBytes: 0 }),
    });
    // The first checks log the committed plan's version (both sides alike) and compact the fold.
    expect(await engine.check('tenant-1', 'planned')).toEqual(await peer.check('tenant-1', 'planned'));
    expect(folds.stats.compactedMessages).toBe(20);
    const manual = { manual: { force: true } };
    const planned = await engine.check('tenant-1', 'planned', manual);
    const peerPlanned = await peer.check('tenant-1', 'planned', manual);
    expect(planned.commit.status).toBe('committed');
    expect(planned).toEqual(peerPlanned);
    expect((await compacting.plans.getCurrent('tenant-1', 'planned')).plan).toEqual(
      (await refolding.plans.getCurrent('tenant-1', 'planned')).plan,
    );
  });
});

/** A plan that drops `messages` (one record). */
function planDropping(
  threadId: string,
  basedOnSeq: number,
  messages: readonly ThreadMessage[],
): CompactionPlan {
  return {
    ...emptyPlan(threadId, '2025-06-01T00:00:00.000Z', basedOnSeq),
    drops: [{ kind: 'drop', span: spanOf(messages), reason: 'older turns' }],
  };
}
