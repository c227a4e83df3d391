import type { LifecycleEvent, LifecycleEventLog } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCompactorError, type StoreUnderTest, uniqueId } from './contract-helpers.js';

/**
 * The LifecycleEventLog contract (see the port's JSDoc).
 *
 * @param adapterName - Names the suite (`<Port> contract: <adapterName>`).
 * @param makeStore - Called before each test for the store and its cleanup.
 */
export function testLifecycleEventLog(
  adapterName: string,
  makeStore: () => Promise<StoreUnderTest<LifecycleEventLog>>,
): void {
  describe(`LifecycleEventLog contract: ${adapterName}`, () => {
    let log: LifecycleEventLog;
    let cleanup: (() => Promise<void>) | undefined;
    let tenantId: string;
    let threadId: string;

    beforeEach(async () => {
      const made = await makeStore();
      log = made.store;
      cleanup = made.cleanup;
      tenantId = uniqueId('tenant');
      threadId = uniqueId('thread');
    });

    afterEach(async () => {
      await cleanup?.();
    });

    function lifecycleEvent(index: number, overrides: Partial<LifecycleEvent> = {}): LifecycleEvent {
      return {
        tenantId,
        threadId,
        name: 'compaction_summarized',
        at: new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString(),
        tokensBefore: 10_000 + index,
        tokensAfter: 4_000,
        budgetLimit: 8_000,
        strategy: 'summarize',
        spanMessageIds: [`m-${index}-a`, `m-${index}-b`],
        tokensFreed: 6_000 + index,
        details: { round: index, note: 'ünïcode 🌍' },
        ...overrides,
      };
    }

    it('lists a thread’s events in append order, as appended', async () => {
      const events = [
        lifecycleEvent(0, { name: 'compaction_check_started' }),
        lifecycleEvent(1),
        lifecycleEvent(2, { name: 'compaction_completed', details: {} }),
      ];
      for (const event of events) await log.append(event);
      expect(await log.list(tenantId, threadId)).toEqual(events);
    });

    it('keeps minimal events minimal', async () => {
      const minimal: LifecycleEvent = {
        tenantId,
        threadId,
        name: 'compaction_failed',
        at: '2025-01-01T00:00:00.000Z',
      };
      await log.append(minimal);
      expect(await log.list(tenantId, threadId)).toEqual([minimal]);
    });

    it('returns the most recent events, still in order, with a limit', async () => {
      const events = Array.from({ length: 7 }, (_, index) => lifecycleEvent(index));
      for (const event of events) await log.append(event);
      expect(await log.list(tenantId, threadId, { limit: 3 })).toEqual(events.slice(4));
      expect(await log.list(tenantId, threadId, { limit: 100 })).toEqual(events);
    });

    it('scopes events by thread and tenant', async () => {
      await log.append(lifecycleEvent(0));
      await log.append(lifecycleEvent(1, { threadId: `${threadId}-other` }));
      const otherTenant = uniqueId('tenant');
      await log.append(lifecycleEvent(2, { tenantId: otherTenant }));
      expect((await log.list(tenantId, threadId)).map((event) => event.tokensFreed)).toEqual([6_000]);
      expect((await log.list(otherTenant, threadId)).map((event) => event.tokensFreed)).toEqual([6_002]);
      expect(await log.list(uniqueId('tenant'), threadId)).toEqual([]);
    });

    it('has no events for an unknown thread', async () => {
      expect(await log.list(tenantId, uniqueId('thread'))).toEqual([]);
    });

    it('keeps every one of many concurrent appends', async () => {
      const events = Array.from({ length: 30 }, (_, index) => lifecycleEvent(index));
      await Promise.all(events.map((event) => log.append(event)));
      const listed = await log.list(tenantId, threadId);
      expect(listed.length).toBe(events.length);
      expect(new Set(listed.map((event) => event.tokensFreed))).toEqual(
        new Set(events.map((event) => event.tokensFreed)),
      );
    });

    it('rejects invalid events', async () => {
      await expectCompactorError(log.append(lifecycleEvent(0, { tenantId: '' })), 'validation');
      await expectCompactorError(log.append(lifecycleEvent(0, { threadId: '' })), 'validation');
      await expectCompactorError(
        log.append(lifecycleEvent(0, { name: 'compaction_exploded' as LifecycleEvent['name'] })),
        'validation',
      );
      expect(await log.list(tenantId, threadId)).toEqual([]);
    });

    // The optional live notification (ADR-0091): run only for adapters that offer it.
    it('notifies subscribers of later appends to their thread only, in order, until unsubscribed', async (context) => {
      if (!log.subscribe) {
        context.skip();
        return;
      }
      const heard: LifecycleEvent[] = [];
      const otherThread: LifecycleEvent[] = [];
      await log.append(lifecycleEvent(0));
      const unsubscribe = log.subscribe(tenantId, threadId, (event) => heard.push(event));
      const unsubscribeOther = log.subscribe(tenantId, `${threadId}-other`, (event) =>
        otherThread.push(event),
      );
      const unsubscribeThrowing = log.subscribe(tenantId, threadId, () => {
        throw new Error('a listener that throws');
      });
      await log.append(lifecycleEvent(1));
      await log.append(lifecycleEvent(2));
      await log.append(lifecycleEvent(3, { tenantId: `${tenantId}-other` }));
      await waitFor(() => heard.length >= 2);
      expect(heard.map((event) => event.tokensFreed)).toEqual([6_001, 6_002]);
      expect(otherThread).toEqual([]);
      unsubscribe();
      unsubscribeOther();
      unsubscribeThrowing();
      await log.append(lifecycleEvent(4));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).toHaveLength(2);
    });
  });
}

/** Notices may come from another process (LISTEN/NOTIFY): wait for them, up to a few seconds. */
async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for lifecycle notices');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
