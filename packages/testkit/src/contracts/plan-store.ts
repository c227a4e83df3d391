import { type CompactionPlan, compactionPlanSchema, type PlanStore } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCompactorError, type StoreUnderTest, uniqueId } from './contract-helpers.js';

/** A plan with real records, so a store that drops fields is caught. */
function samplePlan(threadId: string, basedOnSeq: number, label: string): CompactionPlan {
  return compactionPlanSchema.parse({
    threadId,
    version: 0,
    basedOnSeq,
    createdAt: '2025-02-03T04:05:06.000Z',
    drops: [
      {
        kind: 'drop',
        span: { messageIds: [`m-${label}-1`, `m-${label}-2`], firstTurn: 1, lastTurn: 2 },
        reason: `drop ${label}`,
        index: { keywords: ['alpha', label], brief: 'dropped for the test' },
      },
    ],
    clearings: [
      {
        kind: 'clear',
        span: { messageIds: [`m-${label}-3`], firstTurn: 3, lastTurn: 3 },
        preserved: [
          {
            messageId: `m-${label}-3`,
            toolCallId: 'call-1',
            toolName: 'grep',
            outcome: 'success',
            keyFields: { matches: 3, pattern: 'héllo 🌍' },
          },
        ],
      },
    ],
    originalTokenCount: 1000 + basedOnSeq,
    compactedTokenCount: 400,
  });
}

/**
 * The PlanStore contract (see the port's JSDoc).
 *
 * @param adapterName - Names the suite (`<Port> contract: <adapterName>`).
 * @param makeStore - Called before each test for the store and its cleanup.
 */
export function testPlanStore(
  adapterName: string,
  makeStore: () => Promise<StoreUnderTest<PlanStore>>,
): void {
  describe(`PlanStore contract: ${adapterName}`, () => {
    let store: PlanStore;
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

    it('starts at version 0 with no plan', async () => {
      expect(await store.getCurrent(tenantId, threadId)).toEqual({ plan: null, version: 0 });
      expect(await store.listVersions(tenantId, threadId)).toEqual([]);
      expect(await store.getVersion(tenantId, threadId, 1)).toBeNull();
    });

    it('commits with the expected version and stamps the plan with its version', async () => {
      const plan = samplePlan(threadId, 10, 'a');
      expect(await store.commit(tenantId, threadId, plan, 0)).toEqual({ committed: true, version: 1 });
      const current = await store.getCurrent(tenantId, threadId);
      expect(current.version).toBe(1);
      expect(current.plan).toEqual({ ...plan, version: 1 });
      expect(plan.version).toBe(0); // the caller's object is not changed
    });

    it('refuses a stale expected version and keeps the current plan', async () => {
      await store.commit(tenantId, threadId, samplePlan(threadId, 10, 'a'), 0);
      const stale = await store.commit(tenantId, threadId, samplePlan(threadId, 11, 'b'), 0);
      expect(stale).toEqual({ committed: false, currentVersion: 1 });
      const ahead = await store.commit(tenantId, threadId, samplePlan(threadId, 11, 'b'), 5);
      expect(ahead).toEqual({ committed: false, currentVersion: 1 });
      expect((await store.getCurrent(tenantId, threadId)).plan?.basedOnSeq).toBe(10);
    });

    it('keeps every committed version', async () => {
      const plans = [
        samplePlan(threadId, 10, 'a'),
        samplePlan(threadId, 20, 'b'),
        samplePlan(threadId, 30, 'c'),
      ];
      for (const [index, plan] of plans.entries()) {
        expect(await store.commit(tenantId, threadId, plan, index)).toEqual({
          committed: true,
          version: index + 1,
        });
      }
      for (const [index, plan] of plans.entries()) {
        expect(await store.getVersion(tenantId, threadId, index + 1)).toEqual({
          ...plan,
          version: index + 1,
        });
      }
      expect(await store.getVersion(tenantId, threadId, 4)).toBeNull();
      const versions = await store.listVersions(tenantId, threadId);
      expect(
        versions.map(({ version, basedOnSeq, revertedFrom }) => ({ version, basedOnSeq, revertedFrom })),
      ).toEqual([
        { version: 1, basedOnSeq: 10, revertedFrom: undefined },
        { version: 2, basedOnSeq: 20, revertedFrom: undefined },
        { version: 3, basedOnSeq: 30, revertedFrom: undefined },
      ]);
      for (const summary of versions) expect(Number.isNaN(Date.parse(summary.createdAt))).toBe(false);
    });

    it('undoes by committing a copy of an earlier version', async () => {
      const first = samplePlan(threadId, 10, 'a');
      await store.commit(tenantId, threadId, first, 0);
      await store.commit(tenantId, threadId, samplePlan(threadId, 20, 'b'), 1);
      expect(await store.revertTo(tenantId, threadId, 1, 1)).toEqual({ committed: false, currentVersion: 2 });
      expect(await store.revertTo(tenantId, threadId, 1, 2)).toEqual({ committed: true, version: 3 });
      const current = await store.getCurrent(tenantId, threadId);
      expect(current).toEqual({ plan: { ...first, version: 3 }, version: 3 });
      expect((await store.listVersions(tenantId, threadId)).at(-1)).toMatchObject({
        version: 3,
        basedOnSeq: 10,
        revertedFrom: 1,
      });
      expect(await store.getVersion(tenantId, threadId, 2)).toMatchObject({ version: 2, basedOnSeq: 20 });
      await expectCompactorError(store.revertTo(tenantId, threadId, 9, 3), 'not_found');
    });

    it('lets exactly one of many concurrent committers win', async () => {
      await store.commit(tenantId, threadId, samplePlan(threadId, 5, 'base'), 0);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          store.commit(tenantId, threadId, samplePlan(threadId, 100 + index, `r${index}`), 1),
        ),
      );
      const winners = results.filter((result) => result.committed);
      expect(winners).toEqual([{ committed: true, version: 2 }]);
      for (const result of results) {
        if (!result.committed) expect(result.currentVersion).toBe(2);
      }
      const winnerIndex = results.findIndex((result) => result.committed);
      expect((await store.getCurrent(tenantId, threadId)).plan?.basedOnSeq).toBe(100 + winnerIndex);
      expect((await store.listVersions(tenantId, threadId)).length).toBe(2);
    });

    it('rejects an invalid plan or one for another thread, committing nothing', async () => {
      await expectCompactorError(
        store.commit(tenantId, threadId, samplePlan('some-other-thread', 1, 'x'), 0),
        'validation',
      );
      const broken = { ...samplePlan(threadId, 1, 'x'), basedOnSeq: -3 };
      await expectCompactorError(store.commit(tenantId, threadId, broken, 0), 'validation');
      expect(await store.getCurrent(tenantId, threadId)).toEqual({ plan: null, version: 0 });
    });

    it('returns copies or frozen plans: callers cannot change the store through them', async () => {
      await store.commit(tenantId, threadId, samplePlan(threadId, 10, 'a'), 0);
      const current = await store.getCurrent(tenantId, threadId);
      // A store may hand out one frozen plan per version (no copy per read): changing it then throws.
      const tryChange = (change: () => void, plan: object | null | undefined) => {
        try {
          change();
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          expect(plan && Object.isFrozen(plan)).toBe(true);
        }
      };
      tryChange(() => current.plan?.drops.splice(0, 1), current.plan);
      const fetched = await store.getVersion(tenantId, threadId, 1);
      tryChange(() => {
        if (fetched) fetched.basedOnSeq = 999;
      }, fetched);
      const again = await store.getCurrent(tenantId, threadId);
      expect(again.plan?.drops.length).toBe(1);
      expect(again.plan?.basedOnSeq).toBe(10);
    });

    it('scopes plans by tenant', async () => {
      await store.commit(tenantId, threadId, samplePlan(threadId, 10, 'a'), 0);
      const other = uniqueId('tenant');
      expect(await store.getCurrent(other, threadId)).toEqual({ plan: null, version: 0 });
      expect(await store.getVersion(other, threadId, 1)).toBeNull();
      expect(await store.listVersions(other, threadId)).toEqual([]);
      await expectCompactorError(store.revertTo(other, threadId, 1, 0), 'not_found');
      expect(await store.commit(other, threadId, samplePlan(threadId, 77, 'z'), 0)).toEqual({
        committed: true,
        version: 1,
      });
      expect((await store.getCurrent(tenantId, threadId)).plan?.basedOnSeq).toBe(10);
      expect((await store.getCurrent(other, threadId)).plan?.basedOnSeq).toBe(77);
    });
  });
}
