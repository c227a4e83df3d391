import {
  CompactorError,
  type EventInput,
  type EventStore,
  type StoredEvent,
  stableStringify,
  storedEventSchema,
  ValidationError,
} from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  awkwardText,
  expectCompactorError,
  largeText,
  type StoreUnderTest,
  threadCreatedEvent,
  toolExchangeEvents,
  uniqueId,
  userMessageEvent,
} from './contract-helpers.js';

/** Generous limits for the two big cases; everything else is fast. */
const LARGE_CASE_TIMEOUT_MS = 60_000;

/**
 * The EventStore contract (see the port's JSDoc). Every adapter's spec calls this with a factory
 * giving a fresh store (or a shared one: every test uses its own tenant and thread ids).
 *
 * @param adapterName - Names the suite (`<Port> contract: <adapterName>`).
 * @param makeStore - Called before each test for the store and its cleanup.
 */
export function testEventStore(
  adapterName: string,
  makeStore: () => Promise<StoreUnderTest<EventStore>>,
): void {
  describe(`EventStore contract: ${adapterName}`, () => {
    let store: EventStore;
    let cleanup: (() => Promise<void>) | undefined;
    let tenantId: string;
    let threadId: string;

    beforeEach(async () => {
      const made = await makeStore();
      store = made.store;
      cleanup = made.cleanup;
      tenantId = uniqueId('tenant');
      threadId = uniqueId('thread');
    });

    afterEach(async () => {
      await cleanup?.();
    });

    async function createThread(
      extra: EventInput[] = [],
      target: { tenantId: string; threadId: string } = { tenantId, threadId },
    ) {
      return store.append(target.tenantId, target.threadId, [
        threadCreatedEvent(uniqueId('created')),
        ...extra,
      ]);
    }

    describe('append', () => {
      it('creates a thread with contiguous seqs from 1 and returns the stored events', async () => {
        const result = await createThread([
          userMessageEvent('e-1', awkwardText, { tokens: 12 }),
          userMessageEvent('e-2', 'second', { tokens: 3 }),
        ]);
        expect(result.version).toBe(3);
        expect(result.duplicates).toBe(0);
        expect(result.events.map((event) => event.seq)).toEqual([1, 2, 3]);
        for (const event of result.events) {
          expect(event.tenantId).toBe(tenantId);
          expect(event.threadId).toBe(threadId);
          expect(storedEventSchema.safeParse(event).success).toBe(true);
        }
        const second = result.events[1];
        expect(second?.type === 'message.appended' && second.message.content[0]).toEqual({
          type: 'text',
          text: awkwardText,
        });
        expect(await store.readAll(tenantId, threadId)).toEqual(result.events);
      });

      it('continues seqs across batches', async () => {
        await createThread([userMessageEvent('e-1', 'one')]);
        const second = await store.append(tenantId, threadId, [
          userMessageEvent('e-2', 'two'),
          userMessageEvent('e-3', 'three'),
        ]);
        const third = await store.append(tenantId, threadId, [userMessageEvent('e-4', 'four')]);
        expect(second.version).toBe(4);
        expect(second.events.map((event) => event.seq)).toEqual([3, 4]);
        expect(third.version).toBe(5);
        const all = await store.readAll(tenantId, threadId);
        expect(all.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(all.map((event) => event.eventId).slice(1)).toEqual(['e-1', 'e-2', 'e-3', 'e-4']);
      });

      it('keeps a supplied timestamp verbatim and sets a missing one', async () => {
        const supplied = '2024-03-01T10:00:00.123+02:00';
        const result = await createThread([
          userMessageEvent('e-1', 'with time', { timestamp: supplied }),
          userMessageEvent('e-2', 'without time'),
        ]);
        expect(result.events[1]?.timestamp).toBe(supplied);
        const set = result.events[2]?.timestamp ?? '';
        expect(Number.isNaN(Date.parse(set))).toBe(false);
        expect((await store.readAll(tenantId, threadId))[1]?.timestamp).toBe(supplied);
      });

      it('requires a new thread to start with thread.created', async () => {
        const error = await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('e-1', 'hello')]),
          'validation',
        );
        expect(error).toBeInstanceOf(ValidationError);
        expect(await store.getThread(tenantId, threadId)).toBeNull();
      });

      it('rejects thread.created anywhere but first in a new thread', async () => {
        await expectCompactorError(
          store.append(tenantId, threadId, [
            threadCreatedEvent('created-1'),
            userMessageEvent('e-1', 'hi'),
            threadCreatedEvent('created-2'),
          ]),
          'validation',
        );
        expect(await store.getThread(tenantId, threadId)).toBeNull();
      });

      it('rejects thread.created on an existing thread and writes nothing', async () => {
        await createThread([userMessageEvent('e-1', 'one')]);
        await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('e-2', 'two'), threadCreatedEvent('again')]),
          'validation',
        );
        expect((await store.readAll(tenantId, threadId)).length).toBe(2);
      });

      it('rejects invalid events with field issues and writes nothing of the batch', async () => {
        const invalid = {
          eventId: 'e-bad',
          type: 'message.appended',
          message: { id: 'm-bad', role: 'robot', content: [{ type: 'text', text: 'x' }] },
        } as unknown as EventInput;
        const onNew = await expectCompactorError(
          store.append(tenantId, threadId, [threadCreatedEvent('c'), userMessageEvent('e-1', 'ok'), invalid]),
          'validation',
        );
        const issues = (onNew as ValidationError).issues;
        expect(issues.length).toBeGreaterThan(0);
        expect(issues.some((issue) => issue.path.startsWith('2'))).toBe(true);
        expect(await store.getThread(tenantId, threadId)).toBeNull();

        await createThread();
        await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('e-1', 'ok'), invalid]),
          'validation',
        );
        await expectCompactorError(
          store.append(tenantId, threadId, [
            { eventId: 'e-2', type: 'no.such.type' } as unknown as EventInput,
          ]),
          'validation',
        );
        expect((await store.readAll(tenantId, threadId)).length).toBe(1);
      });

      it('rejects an empty batch, repeated event ids in a batch, and empty ids', async () => {
        await createThread();
        await expectCompactorError(store.append(tenantId, threadId, []), 'validation');
        await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('same', 'a'), userMessageEvent('same', 'a')]),
          'validation',
        );
        await expectCompactorError(
          store.append('', threadId, [threadCreatedEvent('c-empty-tenant')]),
          'validation',
        );
        await expectCompactorError(
          store.append(tenantId, '', [threadCreatedEvent('c-empty-thread')]),
          'validation',
        );
        expect((await store.readAll(tenantId, threadId)).length).toBe(1);
      });

      it('rejects a message id already in the thread (under another event id)', async () => {
        await createThread([userMessageEvent('e-1', 'first', { messageId: 'm-1' })]);
        await expectCompactorError(
          store.append(tenantId, threadId, [
            userMessageEvent('e-2', 'ok', { messageId: 'm-2' }),
            userMessageEvent('e-3', 'again', { messageId: 'm-1' }),
          ]),
          'validation',
        );
        await expectCompactorError(
          store.append(tenantId, threadId, [
            userMessageEvent('e-4', 'a', { messageId: 'm-4' }),
            userMessageEvent('e-5', 'b', { messageId: 'm-4' }),
          ]),
          'validation',
        );
        expect((await store.readAll(tenantId, threadId)).length).toBe(2);
      });
      it('names a broken thread rule at its position in the batch, past stored events retried with it', async () => {
        await createThread([userMessageEvent('e-1', 'first', { messageId: 'm-1' })]);
        const error = await expectCompactorError(
          store.append(tenantId, threadId, [
            userMessageEvent('e-1', 'first', { messageId: 'm-1' }),
            userMessageEvent('e-2', 'again', { messageId: 'm-1' }),
          ]),
          'validation',
        );
        expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual(['1.message.id']);
        expect((await store.readAll(tenantId, threadId)).length).toBe(2);
      });
    });

    describe('expected version', () => {
      it('appends when the expected version matches', async () => {
        await createThread();
        const result = await store.append(tenantId, threadId, [userMessageEvent('e-1', 'x')], {
          expectedVersion: 1,
        });
        expect(result.version).toBe(2);
      });

      it('throws a ConcurrencyError on a mismatch and writes nothing', async () => {
        await createThread([userMessageEvent('e-1', 'x')]);
        const error = await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('e-2', 'y')], { expectedVersion: 1 }),
          'concurrency',
        );
        expect(error.details).toMatchObject({ expectedVersion: 1, actualVersion: 2 });
        expect((await store.readAll(tenantId, threadId)).length).toBe(2);
      });

      it('treats 0 and -1 as "the thread must not exist yet"', async () => {
        const created = await store.append(tenantId, threadId, [threadCreatedEvent('c-1')], {
          expectedVersion: 0,
        });
        expect(created.version).toBe(1);
        await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('e-1', 'x')], { expectedVersion: 0 }),
          'concurrency',
        );
        const other = uniqueId('thread');
        const viaMinusOne = await store.append(tenantId, other, [threadCreatedEvent('c-2')], {
          expectedVersion: -1,
        });
        expect(viaMinusOne.version).toBe(1);
        await expectCompactorError(
          store.append(tenantId, other, [userMessageEvent('e-1', 'x')], { expectedVersion: -1 }),
          'concurrency',
        );
      });

      it('reports a stale creator as a concurrency error, not a validation error', async () => {
        await store.append(tenantId, threadId, [threadCreatedEvent('c-first')], { expectedVersion: 0 });
        await expectCompactorError(
          store.append(tenantId, threadId, [threadCreatedEvent('c-second')], { expectedVersion: 0 }),
          'concurrency',
        );
      });

      it('lets exactly one of many concurrent appends with the same expected version win', async () => {
        await createThread();
        const attempts = Array.from({ length: 12 }, (_, index) =>
          store.append(tenantId, threadId, [userMessageEvent(`race-${index}`, `attempt ${index}`)], {
            expectedVersion: 1,
          }),
        );
        const settled = await Promise.allSettled(attempts);
        const winners = settled.filter((outcome) => outcome.status === 'fulfilled');
        const losers = settled.filter((outcome) => outcome.status === 'rejected');
        expect(winners.length).toBe(1);
        for (const loser of losers) {
          expect(CompactorError.hasCode((loser as PromiseRejectedResult).reason, 'concurrency')).toBe(true);
        }
        expect((await store.readAll(tenantId, threadId)).length).toBe(2);
      });

      it('lands every concurrent append without an expected version, seqs contiguous', async () => {
        await createThread();
        const count = 25;
        const results = await Promise.all(
          Array.from({ length: count }, (_, index) =>
            store.append(tenantId, threadId, [
              userMessageEvent(`c-${index}-a`, `a ${index}`),
              userMessageEvent(`c-${index}-b`, `b ${index}`),
            ]),
          ),
        );
        const all = await store.readAll(tenantId, threadId);
        expect(all.map((event) => event.seq)).toEqual(Array.from({ length: 1 + 2 * count }, (_, i) => i + 1));
        expect(new Set(all.map((event) => event.eventId)).size).toBe(all.length);
        for (const result of results) {
          const [first, second] = result.events;
          expect(second?.seq).toBe((first?.seq ?? 0) + 1); // a batch is never interleaved
        }
      });
    });

    describe('idempotency', () => {
      it('returns the original events for a retried batch and adds nothing', async () => {
        await createThread();
        const batch = [userMessageEvent('r-1', 'one'), userMessageEvent('r-2', 'two')];
        const first = await store.append(tenantId, threadId, batch);
        await store.append(tenantId, threadId, [userMessageEvent('r-3', 'three')]);
        const retry = await store.append(tenantId, threadId, batch, { expectedVersion: 1 });
        expect(retry.duplicates).toBe(2);
        expect(retry.events).toEqual(first.events);
        expect(retry.version).toBe(4);
        expect((await store.readAll(tenantId, threadId)).length).toBe(4);
      });

      it('compares canonical content, not key order or the client timestamp', async () => {
        await createThread();
        const original: EventInput = {
          eventId: 'k-1',
          type: 'message.appended',
          tokens: 5,
          message: {
            id: 'm-k',
            role: 'user',
            content: [{ type: 'text', text: 'same' }],
            metadata: { a: 1, b: 2 },
          },
        };
        const stored = await store.append(tenantId, threadId, [original]);
        const reordered = JSON.parse(
          '{"message":{"metadata":{"b":2,"a":1},"content":[{"text":"same","type":"text"}],"role":"user","id":"m-k"},' +
            '"timestamp":"2030-01-01T00:00:00Z","tokens":5,"type":"message.appended","eventId":"k-1"}',
        ) as EventInput;
        expect(stableStringify(reordered)).not.toBe(stableStringify(original)); // only the timestamp differs
        const retry = await store.append(tenantId, threadId, [reordered]);
        expect(retry.duplicates).toBe(1);
        expect(retry.events).toEqual(stored.events);
      });

      it('throws IdempotencyConflictError for a stored id with different content and writes nothing', async () => {
        await createThread([userMessageEvent('d-1', 'original', { tokens: 4 })]);
        const changedText = store.append(tenantId, threadId, [
          userMessageEvent('d-new', 'new'),
          userMessageEvent('d-1', 'changed', { tokens: 4 }),
        ]);
        await expectCompactorError(changedText, 'idempotency_conflict');
        await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('d-1', 'original', { tokens: 5 })]),
          'idempotency_conflict',
        );
        const all = await store.readAll(tenantId, threadId);
        expect(all.map((event) => event.eventId)).not.toContain('d-new');
        expect(all.length).toBe(2);
      });

      it('stores only the new events of a batch mixing stored and new ones', async () => {
        await createThread();
        const first = await store.append(tenantId, threadId, [userMessageEvent('x-1', 'one')]);
        const mixed = await store.append(tenantId, threadId, [
          userMessageEvent('x-2', 'two'),
          userMessageEvent('x-1', 'one'),
          userMessageEvent('x-3', 'three'),
        ]);
        expect(mixed.duplicates).toBe(1);
        expect(mixed.version).toBe(4);
        expect(mixed.events.map((event) => [event.eventId, event.seq])).toEqual([
          ['x-2', 3],
          ['x-1', 2],
          ['x-3', 4],
        ]);
        expect(mixed.events[1]).toEqual(first.events[0]);
        expect((await store.readAll(tenantId, threadId)).map((event) => event.eventId).slice(1)).toEqual([
          'x-1',
          'x-2',
          'x-3',
        ]);
      });

      it('checks the expected version of a mixed batch', async () => {
        await createThread([userMessageEvent('y-1', 'one')]);
        await expectCompactorError(
          store.append(tenantId, threadId, [userMessageEvent('y-1', 'one'), userMessageEvent('y-2', 'two')], {
            expectedVersion: 1,
          }),
          'concurrency',
        );
        expect((await store.readAll(tenantId, threadId)).length).toBe(2);
      });

      it('stores a batch once when the same retry races with itself', async () => {
        await createThread();
        const batch = [userMessageEvent('s-1', 'one'), userMessageEvent('s-2', 'two')];
        const results = await Promise.all(
          Array.from({ length: 6 }, () => store.append(tenantId, threadId, batch)),
        );
        for (const result of results) {
          expect(result.events.map((event) => event.seq)).toEqual([2, 3]);
        }
        expect(results.filter((result) => result.duplicates === 0).length).toBe(1);
        expect((await store.readAll(tenantId, threadId)).length).toBe(3);
      });

      it('retries a thread.created batch safely', async () => {
        const batch = [threadCreatedEvent('c-retry'), userMessageEvent('e-1', 'hi')];
        const first = await store.append(tenantId, threadId, batch, { expectedVersion: 0 });
        const retry = await store.append(tenantId, threadId, batch, { expectedVersion: 0 });
        expect(retry.events).toEqual(first.events);
        expect(retry.duplicates).toBe(2);
      });
    });

    describe('read', () => {
      it('pages through a thread from any seq', async () => {
        await createThread(
          Array.from({ length: 24 }, (_, index) => userMessageEvent(`p-${index}`, `m ${index}`)),
        );
        const seen: StoredEvent[] = [];
        let fromSeq: number | null = 1;
        while (fromSeq !== null) {
          const page: { events: StoredEvent[]; nextSeq: number | null } = await store.read(
            tenantId,
            threadId,
            {
              fromSeq,
              limit: 10,
            },
          );
          expect(page.events.length).toBe(Math.min(10, 25 - fromSeq + 1));
          expect(page.events[0]?.seq).toBe(fromSeq);
          seen.push(...page.events);
          fromSeq = page.nextSeq;
          if (fromSeq !== null) expect(fromSeq).toBe((page.events.at(-1)?.seq ?? 0) + 1);
        }
        expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
        const middle = await store.read(tenantId, threadId, { fromSeq: 20 });
        expect(middle.events.map((event) => event.seq)).toEqual([20, 21, 22, 23, 24, 25]);
        expect(middle.nextSeq).toBeNull();
        const exact = await store.read(tenantId, threadId, { fromSeq: 16, limit: 10 });
        expect(exact.events.length).toBe(10);
        expect(exact.nextSeq).toBeNull();
      });

      it('returns an empty page past the end', async () => {
        await createThread();
        expect(await store.read(tenantId, threadId, { fromSeq: 2 })).toEqual({ events: [], nextSeq: null });
        expect(await store.read(tenantId, threadId, { fromSeq: 50, limit: 5 })).toEqual({
          events: [],
          nextSeq: null,
        });
      });

      it('rejects a non-positive fromSeq or limit', async () => {
        await createThread();
        await expectCompactorError(store.read(tenantId, threadId, { fromSeq: 0 }), 'validation');
        await expectCompactorError(store.read(tenantId, threadId, { limit: 0 }), 'validation');
        await expectCompactorError(store.read(tenantId, threadId, { limit: 1.5 }), 'validation');
      });

      it('throws NotFoundError for an unknown thread', async () => {
        await expectCompactorError(store.read(tenantId, threadId), 'not_found');
        await expectCompactorError(store.readAll(tenantId, threadId), 'not_found');
        expect(await store.getThread(tenantId, threadId)).toBeNull();
      });
    });

    describe('readNewest', () => {
      it('returns the newest events, oldest first, and all of them for a short thread', async () => {
        await createThread(
          Array.from({ length: 12 }, (_, index) => userMessageEvent(`n-${index}`, `m ${index}`)),
        );
        const newest = await store.readNewest(tenantId, threadId, 5);
        expect(newest.map((event) => event.seq)).toEqual([9, 10, 11, 12, 13]);
        expect(newest.map((event) => event.eventId)).toEqual(['n-7', 'n-8', 'n-9', 'n-10', 'n-11']);
        expect(newest).toEqual((await store.readAll(tenantId, threadId)).slice(-5));
        expect((await store.readNewest(tenantId, threadId, 1))[0]?.eventId).toBe('n-11');
        const all = await store.readNewest(tenantId, threadId, 500);
        expect(all.map((event) => event.seq)).toEqual(Array.from({ length: 13 }, (_, index) => index + 1));
      });

      it('sees an append made after the previous read', async () => {
        await createThread([userMessageEvent('before', 'before')]);
        await store.readNewest(tenantId, threadId, 2);
        await store.append(tenantId, threadId, [userMessageEvent('after', 'after')]);
        expect((await store.readNewest(tenantId, threadId, 2)).map((event) => event.eventId)).toEqual([
          'before',
          'after',
        ]);
      });

      it('rejects a count that is not a positive integer, and an unknown thread', async () => {
        await createThread();
        await expectCompactorError(store.readNewest(tenantId, threadId, 0), 'validation');
        await expectCompactorError(store.readNewest(tenantId, threadId, 2.5), 'validation');
        await expectCompactorError(store.readNewest(tenantId, uniqueId('missing'), 3), 'not_found');
        await expectCompactorError(store.readNewest(uniqueId('other-tenant'), threadId, 3), 'not_found');
      });
    });

    describe('thread metadata', () => {
      it('keeps model, counts, message token totals and times', async () => {
        const result = await store.append(tenantId, threadId, [
          threadCreatedEvent('c-meta', {
            model: 'gpt-5',
            contextWindow: 400_000,
            timestamp: '2025-01-01T00:00:00Z',
          }),
          userMessageEvent('m-1', 'one', { tokens: 10 }),
          userMessageEvent('m-2', 'two', { tokens: 32 }),
          userMessageEvent('m-3', 'untokenized'),
        ]);
        await store.append(tenantId, threadId, [
          { eventId: 'l-1', type: 'lifecycle', name: 'compaction_completed', details: {}, tokens: 1000 },
          userMessageEvent('m-4', 'four', { tokens: 7, timestamp: '2025-01-02T03:04:05Z' }),
        ]);
        const metadata = await store.getThread(tenantId, threadId);
        expect(metadata).toMatchObject({
          tenantId,
          threadId,
          model: 'gpt-5',
          contextWindow: 400_000,
          version: 6,
          eventCount: 6,
          messageCount: 4,
          messageTokens: 49,
          createdAt: '2025-01-01T00:00:00Z',
          updatedAt: '2025-01-02T03:04:05Z',
          compactionPending: false,
        });
        expect(result.events[0]?.timestamp).toBe('2025-01-01T00:00:00Z');
      });

      it('lists a tenant’s threads in pages, each exactly once', async () => {
        const threadIds = Array.from({ length: 5 }, (_, index) => `${threadId}-${index}`);
        for (const id of threadIds)
          await createThread([userMessageEvent('e', id, { tokens: 2 })], { tenantId, threadId: id });
        await createThread([], { tenantId: uniqueId('other-tenant'), threadId: `${threadId}-other` });
        const listed: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await store.listThreads(tenantId, { limit: 2, ...(cursor ? { cursor } : {}) });
          expect(page.threads.length).toBeLessThanOrEqual(2);
          for (const thread of page.threads) {
            expect(thread.tenantId).toBe(tenantId);
            expect(thread).toEqual(await store.getThread(tenantId, thread.threadId));
          }
          listed.push(...page.threads.map((thread) => thread.threadId));
          cursor = page.nextCursor ?? undefined;
          pages += 1;
        } while (cursor !== undefined && pages < 10);
        expect(listed.sort()).toEqual([...threadIds].sort());
        expect(pages).toBeGreaterThanOrEqual(3);
      });

      it('flags threads whose compaction check is pending', async () => {
        await createThread();
        await store.setCompactionPending(tenantId, threadId, true);
        expect((await store.getThread(tenantId, threadId))?.compactionPending).toBe(true);
        expect(await store.listCompactionPending(10_000)).toContainEqual({ tenantId, threadId });
        await store.setCompactionPending(tenantId, threadId, false);
        expect((await store.getThread(tenantId, threadId))?.compactionPending).toBe(false);
        expect(await store.listCompactionPending(10_000)).not.toContainEqual({ tenantId, threadId });
        await expectCompactorError(store.setCompactionPending(tenantId, uniqueId('none'), true), 'not_found');
      });
    });

    describe('tenant scoping', () => {
      it('hides a thread from every other tenant', async () => {
        await createThread([userMessageEvent('e-1', 'secret')]);
        const intruder = uniqueId('intruder');
        await expectCompactorError(store.read(intruder, threadId), 'not_found');
        await expectCompactorError(store.readAll(intruder, threadId), 'not_found');
        expect(await store.getThread(intruder, threadId)).toBeNull();
        expect((await store.listThreads(intruder)).threads).toEqual([]);
        await expectCompactorError(store.setCompactionPending(intruder, threadId, true), 'not_found');
        await expectCompactorError(
          store.append(intruder, threadId, [userMessageEvent('e-2', 'sneak')]),
          'validation',
        );
        expect((await store.readAll(tenantId, threadId)).length).toBe(2);
      });

      it('keeps two tenants’ threads of the same id apart', async () => {
        const other = uniqueId('tenant');
        await createThread([userMessageEvent('e-1', 'mine')]);
        const theirs = await createThread([userMessageEvent('e-1', 'theirs')], { tenantId: other, threadId });
        expect(theirs.duplicates).toBe(0);
        expect(theirs.events.map((event) => event.seq)).toEqual([1, 2]);
        const mine = await store.readAll(tenantId, threadId);
        const second = mine[1];
        expect(second?.type === 'message.appended' && second.message.content[0]).toEqual({
          type: 'text',
          text: 'mine',
        });
        expect((await store.readAll(other, threadId)).every((event) => event.tenantId === other)).toBe(true);
      });
    });

    describe('scale', () => {
      it(
        'holds a 10,000-event thread',
        async () => {
          await createThread();
          const total = 10_000;
          const batchSize = 500;
          for (let start = 0; start < total; start += batchSize) {
            const batch = Array.from({ length: batchSize }, (_, offset) =>
              userMessageEvent(`big-${start + offset}`, `message number ${start + offset}`, { tokens: 3 }),
            );
            const result = await store.append(tenantId, threadId, batch);
            expect(result.version).toBe(1 + start + batchSize);
          }
          const all = await store.readAll(tenantId, threadId);
          expect(all.length).toBe(total + 1);
          expect(all.every((event, index) => event.seq === index + 1)).toBe(true);
          expect(all[total]?.eventId).toBe(`big-${total - 1}`);
          // seq s holds big-(s - 2): seq 1 is thread.created
          const tail = await store.read(tenantId, threadId, { fromSeq: total - 8 });
          expect(tail.events.map((event) => event.eventId)).toEqual(
            Array.from({ length: 10 }, (_, index) => `big-${total - 10 + index}`),
          );
          expect(tail.nextSeq).toBeNull();
          const newest = await store.readNewest(tenantId, threadId, 10);
          expect(newest).toEqual(tail.events);
          expect(await store.getThread(tenantId, threadId)).toMatchObject({
            version: total + 1,
            messageCount: total,
            messageTokens: 3 * total,
          });
          const retry = await store.append(tenantId, threadId, [
            userMessageEvent('big-42', 'message number 42', { tokens: 3 }),
          ]);
          expect(retry.events[0]?.seq).toBe(44);
        },
        LARGE_CASE_TIMEOUT_MS,
      );

      it(
        'holds 1 MB tool outputs',
        async () => {
          const megabyte = largeText(1024 * 1024);
          const unicodeMegabyte = `${awkwardText}${largeText(1024 * 1024 - 200)}${awkwardText}`;
          await createThread([
            ...toolExchangeEvents('one', megabyte),
            ...toolExchangeEvents('two', unicodeMegabyte),
          ]);
          await store.append(tenantId, threadId, [userMessageEvent('after', 'small after big')]);
          const all = await store.readAll(tenantId, threadId);
          expect(all.length).toBe(6);
          const outputs = all.flatMap((event) =>
            event.type === 'message.appended'
              ? event.message.content.flatMap((part) => (part.type === 'tool_result' ? [part.content] : []))
              : [],
          );
          expect(outputs).toEqual([megabyte, unicodeMegabyte]);
          const last = await store.read(tenantId, threadId, { fromSeq: 6 });
          expect(last.events[0]?.eventId).toBe('after');
        },
        LARGE_CASE_TIMEOUT_MS,
      );
    });
  });
}
