import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exponentialBackoffDelay, type RetryPolicy } from '../src/index.js';
import { resolveRetryPolicy } from '../src/retry-policy.js';

describe('exponential backoff with jitter', () => {
  it('doubles the delay with each failed attempt when there is no jitter', () => {
    const policy: RetryPolicy = { attempts: 6, backoffDelayMs: 100, jitter: 0 };
    expect([1, 2, 3, 4, 5].map((failed) => exponentialBackoffDelay(failed, policy))).toEqual([
      100, 200, 400, 800, 1600,
    ]);
  });

  it('stays within [(1 - jitter) * maximum, maximum] and spreads across it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (failedAttempts, backoffDelayMs, jitter, random) => {
          const policy = { attempts: 11, backoffDelayMs, jitter };
          const maximum = Math.round(2 ** (failedAttempts - 1) * backoffDelayMs);
          const delay = exponentialBackoffDelay(failedAttempts, policy, () => random);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(maximum * (1 - jitter)));
          expect(delay).toBeLessThanOrEqual(maximum);
        },
      ),
    );
    const policy = { attempts: 3, backoffDelayMs: 1_000, jitter: 0.5 };
    expect(exponentialBackoffDelay(1, policy, () => 0)).toBe(500);
    expect(exponentialBackoffDelay(1, policy, () => 0.999)).toBe(999);
  });

  it('rejects nonsensical policies', () => {
    expect(() => resolveRetryPolicy({ attempts: 0 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ jitter: 1.5 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ backoffDelayMs: -1 })).toThrow(RangeError);
    expect(resolveRetryPolicy({ attempts: 2 })).toEqual({ attempts: 2, backoffDelayMs: 2_000, jitter: 0.5 });
  });
});
