import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { delayWithinWindow } from '../src/debounce.js';
import { newJobId, windowStartOfJobId } from '../src/job-keys.js';

describe('debounce window with a maximum wait', () => {
  it('never schedules past the window end, never later than the debounce, never negative', () => {
    fc.assert(
      fc.property(
        fc.nat(60_000),
        fc.nat(1_000_000),
        fc.nat(60_000),
        fc.nat(120_000),
        (debounceMs, windowStartedAt, maxWaitMs, elapsed) => {
          const now = windowStartedAt + elapsed;
          const delay = delayWithinWindow(debounceMs, windowStartedAt, maxWaitMs, now);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(debounceMs);
          expect(now + delay).toBeLessThanOrEqual(Math.max(now, windowStartedAt + maxWaitMs));
        },
      ),
    );
  });

  it('reads the window start back from any job id it wrote', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.nat(2 ** 45),
        (tenantId, threadId, at) => {
          const id = newJobId({ tenantId, threadId, version: 1, reason: 'append' }, at);
          expect(windowStartOfJobId(id)).toBe(at);
        },
      ),
    );
    expect(windowStartOfJobId('some-foreign-id')).toBeUndefined();
  });
});
