import { emptyPlan } from '@compactor/core';
import { createRenderCache } from '@compactor/render';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it } from 'vitest';
import { createRenderMeasurer } from '../src/index.js';

describe('the render measurer (ADR-0280)', () => {
  const { thread } = threadBuilder('measured')
    .user('read the config')
    .assistant('reading', { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.json' } }] })
    .toolResult('c1', '{"port": 8080}', { keyFields: { port: 8080 } })
    .assistant('the port is 8080')
    .build();

  it('renders a plan object once: measuring it again reads nothing from the render cache', () => {
    const cache = createRenderCache();
    const measurer = createRenderMeasurer(
      thread,
      createTokenizer({ model: thread.model }),
      'anthropic',
      cache,
    );
    const plan = emptyPlan(thread.id, '2025-01-01T00:00:00.000Z', 0);
    const first = measurer.measure(plan);
    const afterFirst = cache.stats.hits + cache.stats.misses;
    expect(measurer.measure(plan)).toBe(first);
    expect(cache.stats.hits + cache.stats.misses).toBe(afterFirst);
    // An equal plan in another object is rendered (through the cache) and counts the same.
    const hitsBefore = cache.stats.hits;
    expect(measurer.measure({ ...plan })).toBe(first);
    expect(cache.stats.hits).toBeGreaterThan(hitsBefore);
    // No plan at all: rendered once too.
    const withoutPlan = measurer.measure(null);
    const afterNull = cache.stats.hits + cache.stats.misses;
    expect(measurer.measure(null)).toBe(withoutPlan);
    expect(cache.stats.hits + cache.stats.misses).toBe(afterNull);
  });
});
