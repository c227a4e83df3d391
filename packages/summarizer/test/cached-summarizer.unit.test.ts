import {
  type CachedSummary,
  type SummarizeRequest,
  type Summarizer,
  type SummaryCache,
  summaryCacheKeyToString,
} from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { createCachedSummarizer, createExtractiveSummarizer } from '../src/index.js';

function mapCache(): SummaryCache & { keys: string[] } {
  const entries = new Map<string, CachedSummary>();
  return {
    get keys() {
      return [...entries.keys()];
    },
    async get(tenantId, key) {
      return entries.get(`${tenantId}/${summaryCacheKeyToString(key)}`) ?? null;
    },
    async set(tenantId, key, value) {
      entries.set(`${tenantId}/${summaryCacheKeyToString(key)}`, value);
    },
  };
}

function counting(inner: Summarizer): Summarizer & { calls: number } {
  const wrapper = {
    ...inner,
    calls: 0,
    async summarize(request: SummarizeRequest) {
      wrapper.calls += 1;
      return inner.summarize(request);
    },
  };
  return wrapper;
}

const { thread } = threadBuilder('t1').user('Always use tabs.').assistant('ok').build();
const request: SummarizeRequest = {
  tenantId: 'tenant-a',
  threadId: 't1',
  span: { messageIds: ['m1', 'm2'], firstTurn: 1, lastTurn: 1 },
  messages: thread.messages,
};

describe('cached summarizer', () => {
  it('pays for the same span once', async () => {
    const inner = counting(createExtractiveSummarizer());
    const cached = createCachedSummarizer(inner, { cache: mapCache(), policyVersion: '1' });
    const first = await cached.summarize(request);
    const second = await cached.summarize(request);
    expect(inner.calls).toBe(1);
    expect(second.via).toBe('cache');
    expect(second.summary).toEqual(first.summary);
  });

  it('keys by content, policy version, instructions and tenant', async () => {
    const cache = mapCache();
    const inner = counting(createExtractiveSummarizer());
    const cached = createCachedSummarizer(inner, { cache, policyVersion: '1' });
    await cached.summarize(request);
    await cached.summarize({ ...request, tenantId: 'tenant-b' });
    await cached.summarize({ ...request, instructions: 'focus on style' });
    await createCachedSummarizer(inner, { cache, policyVersion: '2' }).summarize(request);
    const edited = threadBuilder('t1').user('Always use spaces.').assistant('ok').build().thread;
    await cached.summarize({ ...request, messages: edited.messages });
    expect(inner.calls).toBe(5);
    expect(new Set(cache.keys).size).toBe(5);
  });

  it("keys by the request's policy version (the thread's) over the configured default", async () => {
    const cache = mapCache();
    const inner = counting(createExtractiveSummarizer());
    const cached = createCachedSummarizer(inner, { cache, policyVersion: 'default' });
    await cached.summarize({ ...request, policyVersion: '1' });
    await cached.summarize({ ...request, policyVersion: '1' });
    expect(inner.calls).toBe(1);
    await cached.summarize({ ...request, policyVersion: '2' });
    expect(inner.calls).toBe(2);
    await cached.summarize(request);
    expect(inner.calls).toBe(3);
    expect(cache.keys.map((key) => key.split(':')[2])).toEqual(['1', '2', 'default']);
  });

  it('does not cache a fallback result', async () => {
    const cache = mapCache();
    const truncating: Summarizer = {
      id: 'x',
      modelId: 'x',
      promptVersion: '1',
      summarize: async () => ({
        ...(await createExtractiveSummarizer().summarize(request)),
        via: 'truncation',
      }),
    };
    await createCachedSummarizer(truncating, { cache, policyVersion: '1' }).summarize(request);
    expect(cache.keys).toEqual([]);
  });
});
