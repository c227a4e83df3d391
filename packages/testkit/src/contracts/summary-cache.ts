import {
  type CachedSummary,
  STRUCTURED_SUMMARY_SCHEMA_VERSION,
  type SummaryCache,
  type SummaryCacheKey,
  structuredSummarySchema,
} from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StoreUnderTest, uniqueId } from './contract-helpers.js';

function sampleValue(label: string): CachedSummary {
  return {
    summary: structuredSummarySchema.parse({
      facts: [{ text: `the user prefers ${label}`, pinned: true, sourceMessageId: 'm-1' }],
      decisions: [{ decision: 'use vitest', rationale: 'already in the repo' }],
      currentTask: `finish ${label} — ünïcode 🌍`,
      filesRead: ['src/index.ts'],
    }),
    summaryTokenCount: 42,
    costUsd: 0.0031,
    createdAt: '2025-04-05T06:07:08.000Z',
  };
}

/**
 * The SummaryCache contract (see the port's JSDoc).
 *
 * @param adapterName - Names the suite (`<Port> contract: <adapterName>`).
 * @param makeStore - Called before each test for the store and its cleanup.
 */
export function testSummaryCache(
  adapterName: string,
  makeStore: () => Promise<StoreUnderTest<SummaryCache>>,
): void {
  describe(`SummaryCache contract: ${adapterName}`, () => {
    let cache: SummaryCache;
    let cleanup: (() => Promise<void>) | undefined;
    let tenantId: string;
    let key: SummaryCacheKey;

    beforeEach(async () => {
      const made = await makeStore();
      cache = made.store;
      cleanup = made.cleanup;
      tenantId = uniqueId('tenant');
      key = {
        contentHash: uniqueId('sha'),
        schemaVersion: STRUCTURED_SUMMARY_SCHEMA_VERSION,
        policyVersion: '1',
        modelId: 'claude-haiku-4-5',
        promptVersion: 'p3',
      };
    });

    afterEach(async () => {
      await cleanup?.();
    });

    it('misses a key never set', async () => {
      expect(await cache.get(tenantId, key)).toBeNull();
    });

    it('returns what was set', async () => {
      const value = sampleValue('python');
      await cache.set(tenantId, key, value);
      expect(await cache.get(tenantId, key)).toEqual(value);
    });

    it('matches only when every key field is equal', async () => {
      await cache.set(tenantId, key, sampleValue('python'));
      for (const field of Object.keys(key) as Array<keyof SummaryCacheKey>) {
        expect(await cache.get(tenantId, { ...key, [field]: `${key[field]}-changed` })).toBeNull();
      }
    });

    it('never serves one tenant’s summary to another', async () => {
      await cache.set(tenantId, key, sampleValue('python'));
      expect(await cache.get(uniqueId('tenant'), key)).toBeNull();
    });

    it('replaces the value on a second set', async () => {
      await cache.set(tenantId, key, sampleValue('python'));
      const newer = sampleValue('rust');
      await cache.set(tenantId, key, newer);
      expect(await cache.get(tenantId, key)).toEqual(newer);
    });

    it('keeps tenants’ values for the same key apart', async () => {
      const other = uniqueId('tenant');
      await cache.set(tenantId, key, sampleValue('python'));
      await cache.set(other, key, sampleValue('go'));
      expect((await cache.get(tenantId, key))?.summary.currentTask).toContain('python');
      expect((await cache.get(other, key))?.summary.currentTask).toContain('go');
    });

    it('survives concurrent sets of the same key with one whole value', async () => {
      const values = Array.from({ length: 8 }, (_, index) => sampleValue(`v${index}`));
      await Promise.all(values.map((value) => cache.set(tenantId, key, value)));
      expect(values).toContainEqual(await cache.get(tenantId, key));
    });
  });
}
