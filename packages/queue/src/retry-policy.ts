/** Retries of a failing check: exponential backoff with jitter, as BullMQ's built-in strategy. */
export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  /** Delay before the second attempt; it doubles for each further attempt. */
  backoffDelayMs: number;
  /** Fraction of the delay that is randomized (0 none, 1 anywhere between 0 and the full delay). */
  jitter: number;
}

/** 5 attempts, 2 s doubling, 50 % jitter. */
export const defaultRetryPolicy: RetryPolicy = { attempts: 5, backoffDelayMs: 2_000, jitter: 0.5 };

export function resolveRetryPolicy(overrides: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy = { ...defaultRetryPolicy, ...overrides };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) {
    throw new RangeError('retry attempts must be a whole number of at least 1');
  }
  if (!(policy.backoffDelayMs >= 0)) throw new RangeError('backoffDelayMs must be at least 0');
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) throw new RangeError('jitter must be between 0 and 1');
  return policy;
}

/**
 * The delay before the attempt after `failedAttempts` failures: `backoffDelayMs * 2^(failedAttempts-1)`,
 * of which the `jitter` fraction is random (the same formula as BullMQ's `exponential` backoff).
 *
 * @param failedAttempts - Failures so far, at least 1.
 * @param policy - The retry policy.
 * @param random - A source of numbers in [0, 1).
 * @returns The delay in milliseconds.
 */
export function exponentialBackoffDelay(
  failedAttempts: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const maximum = Math.round(2 ** (failedAttempts - 1) * policy.backoffDelayMs);
  if (policy.jitter <= 0) return maximum;
  const minimum = maximum * (1 - policy.jitter);
  return Math.floor(random() * maximum * policy.jitter + minimum);
}
