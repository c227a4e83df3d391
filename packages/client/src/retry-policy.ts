/** How the client retries calls that are safe to repeat. */
export interface RetryPolicy {
  /** Retries after the first attempt. @defaultValue 3 */
  retries: number;
  /** First backoff, doubled per retry (with jitter). @defaultValue 100 */
  baseDelayMs: number;
  /** Longest wait between attempts, `Retry-After` included. @defaultValue 5,000 */
  maxDelayMs: number;
}

/** 3 retries, 100 ms doubling, at most 5 s apart. */
export const defaultRetryPolicy: RetryPolicy = { retries: 3, baseDelayMs: 100, maxDelayMs: 5_000 };

/**
 * Exponential backoff with "equal jitter": half fixed, half random, so retries spread out.
 *
 * @param retry - 0 for the first retry.
 * @param policy - The retry policy.
 * @param random - A source of numbers in [0, 1).
 * @returns The delay in milliseconds.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/**
 * `Retry-After` in seconds or as an HTTP date, in milliseconds.
 *
 * @param header - The header's value, or null.
 * @param now - The current time in ms (for an HTTP date).
 * @returns The wait, at least 0; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
