import { compactionPlanSchema, type EventInput, noopLogger } from '@compactor/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, type EmbeddedSharing, type EmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const TENANT = 'tenant-memory';
const SMALL_BUDGET = 64 * 1024;

function created(): EventInput {
  return { eventId: 'created', type: 'thread.created', model: 'm', contextWindow: 100_000 };
}

function message(index: number, messageIndex = index): EventInput {
  return {
    eventId: `event-${index}-${'x'.repeat(40)}`,
    type: 'message.appended',
    tokens: 3,
    message: {
      id: `message-${messageIndex}-${'y'.repeat(40)}`,
      role: 'user',
      content: [{ type: 'text', text: `m${index}` }],
    },
  };
}

function plan(threadId: string, basedOnSeq: number) {
  return compactionPlanSchema.parse({
    threadId,
    version: 0,
    basedOnSeq,
    createdAt: '2025-03-01T00:00:00.000Z',
    policyHash: 'p',
    records: [],
  });
}

describe.each<EmbeddedSharing>(['exclusive', 'shared'])(
  'memory of the embedded stores (%s mode)',
  (sharing) => {
    let stores: EmbeddedStores | undefined;
    let remove: (() => Promise<void>) | undefined;

    afterEach(async () => {
      await stores?.close();
      await remove?.();
      stores = undefined;
    });

    async function open(cacheBytes?: number): Promise<EmbeddedStores> {
      const directory = await makeTemporaryDirectory();
      remove = directory.remove;
      stores = await createEmbeddedStores({
        dataDir: directory.dataDir,
        sharing,
        logger: noopLogger,
        ...(cacheBytes === undefined ? {} : { cacheBytes }),
      });
      return stores;
    }

    it('keeps nothing for threads that do not exist, however many are asked about', async () => {
      const opened = await open();
      await opened.events.append(TENANT, 'real', [created(), message(1)]);
      for (let index = 0; index < 2_000; index += 1) {
        const threadId = `missing-${index}`;
        expect(await opened.events.getThread(TENANT, threadId)).toBeNull();
        await expect(opened.events.read(TENANT, threadId)).rejects.toMatchObject({ code: 'not_found' });
        expect(await opened.plans.getCurrent(TENANT, threadId)).toEqual({ plan: null, version: 0 });
        expect(await opened.plans.listVersions(TENANT, threadId)).toEqual([]);
        expect(await opened.lifecycle.list(TENANT, threadId)).toEqual([]);
      }
      expect(opened.events.cacheStats.entries).toBe(1);
      expect(opened.plans.cacheStats.entries).toBe(0);
      expect(opened.lifecycle.cacheStats.entries).toBe(0);
    });

    it('stays within its byte budget while every thread stays readable, appendable and idempotent', async () => {
      const opened = await open(SMALL_BUDGET);
      const threads = Array.from({ length: 40 }, (_, index) => `thread-${index}`);
      for (const threadId of threads) {
        await opened.events.append(TENANT, threadId, [
          created(),
          ...Array.from({ length: 60 }, (_, i) => message(i)),
        ]);
        await opened.plans.commit(TENANT, threadId, plan(threadId, 30), 0);
        expect(opened.events.cacheStats.bytes).toBeLessThanOrEqual(SMALL_BUDGET);
        expect(opened.plans.cacheStats.bytes).toBeLessThanOrEqual(SMALL_BUDGET);
      }
      // Far more than the budget was written: most indexes were dropped and are rebuilt on demand.
      expect(opened.events.cacheStats.entries).toBeLessThan(threads.length);
      for (const threadId of threads) {
        const metadata = await opened.events.getThread(TENANT, threadId);
        expect(metadata).toMatchObject({ version: 61, messageCount: 60, messageTokens: 180 });
        // A retried event is recognised after its thread's index was dropped and rebuilt.
        const retry = await opened.events.append(TENANT, threadId, [message(59)]);
        expect(retry).toMatchObject({ version: 61, duplicates: 1 });
        await expect(
          // A message id the thread already has, under a new event id.
          opened.events.append(TENANT, threadId, [message(999, 3)]),
        ).rejects.toMatchObject({ code: 'validation' });
        const appended = await opened.events.append(TENANT, threadId, [message(60)], { expectedVersion: 61 });
        expect(appended.events[0]!.seq).toBe(62);
        expect(await opened.plans.commit(TENANT, threadId, plan(threadId, 40), 0)).toEqual({
          committed: false,
          currentVersion: 1,
        });
        expect(await opened.plans.commit(TENANT, threadId, plan(threadId, 40), 1)).toEqual({
          committed: true,
          version: 2,
        });
      }
      const page = await opened.events.read(TENANT, 'thread-7', { fromSeq: 60 });
      expect(page.events.map((event) => event.seq)).toEqual([60, 61, 62]);
      expect(opened.events.cacheStats.bytes).toBeLessThanOrEqual(SMALL_BUDGET);
      expect(opened.plans.cacheStats.bytes).toBeLessThanOrEqual(SMALL_BUDGET);
    });

    it('never lets concurrent appends and reads of a thread see two copies of its index', async () => {
      const opened = await open(SMALL_BUDGET);
      const threads = Array.from({ length: 12 }, (_, index) => `busy-${index}`);
      await Promise.all(threads.map((threadId) => opened.events.append(TENANT, threadId, [created()])));
      await Promise.all(
        threads.flatMap((threadId) =>
          Array.from({ length: 30 }, (_, index) =>
            index % 3 === 0
              ? opened.events.read(TENANT, threadId).then(() => undefined)
              : opened.events.append(TENANT, threadId, [message(index)]).then(() => undefined),
          ),
        ),
      );
      for (const threadId of threads) {
        const events = await opened.events.readAll(TENANT, threadId);
        expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
        expect(events).toHaveLength(21);
      }
    });
  },
);
