export interface RetryPolicy {
  /** Retries after the first attempt. Default 3. */
  retries: number;
  /** First backoff, doubled per retry (with jitter). Default 100 ms. */
  baseDelayMs: number;
  /** Longest wait between attempts, `Retry-After` included. Default 5 s. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { retries: 3, baseDelayMs: 100, maxDelayMs: 5_000 };

/** Exponential backoff with "equal jitter": half fixed, half random, so retries spread out. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
