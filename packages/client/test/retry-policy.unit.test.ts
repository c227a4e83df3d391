import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, defaultRetryPolicy, isRetryableStatus, retryAfterMs } from '../src/index.js';

describe('retry policy', () => {
  it('retries 429 and 5xx only', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), (status) => {
        expect(isRetryableStatus(status)).toBe(status === 429 || status >= 500);
      }),
    );
  });

  it('backs off between half and all of the doubled delay, never above the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (retry, random) => {
          const full = Math.min(defaultRetryPolicy.maxDelayMs, defaultRetryPolicy.baseDelayMs * 2 ** retry);
          const delay = backoffDelay(retry, defaultRetryPolicy, () => random);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(full / 2));
          expect(delay).toBeLessThanOrEqual(full);
        },
      ),
    );
  });

  it('reads Retry-After in seconds or as a date', () => {
    const now = Date.parse('2025-06-01T00:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('Sun, 01 Jun 2025 00:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Sat, 31 May 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});
