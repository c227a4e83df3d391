import { availableForMessages, hardLimitForMessages } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { highWaterFor, threadBudget } from '../src/compaction-engine.js';

function thread(policy: Record<string, unknown>) {
  const builder = threadBuilder('t-hw', { policy: policy as never, contextWindow: 64_000 });
  builder.user('hello');
  return builder.build().thread;
}

describe('the high-water mark (ADR-0151)', () => {
  it('fires the target trigger above the target, within the ceiling, when the cost model is on', () => {
    const onThread = thread({});
    const target = availableForMessages(threadBudget(onThread));
    const high = highWaterFor(onThread, {}, target);
    expect(high).toBeGreaterThan(target);
    expect(high).toBe(availableForMessages(threadBudget(onThread, {}, 0.95)));
    expect(high).toBeLessThanOrEqual(hardLimitForMessages(threadBudget(onThread)));
  });

  it('is the target when the cost model is off or the soft threshold is already at the high-water mark', () => {
    const off = thread({ cacheCostModel: false });
    const offTarget = availableForMessages(threadBudget(off));
    expect(highWaterFor(off, {}, offTarget)).toBe(offTarget);
    const pi = thread({ preset: 'pi' });
    const piTarget = availableForMessages(threadBudget(pi));
    expect(highWaterFor(pi, {}, piTarget)).toBe(piTarget);
  });
});
