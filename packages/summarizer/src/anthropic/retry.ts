/** How {@link withRetries} backs off and which errors it retries. */
export interface RetryOptions {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The first backoff ceiling; it doubles with each attempt. */
  baseDelayMs: number;
  /** No wait is longer, whatever the server asks. */
  maxDelayMs: number;
  /** Aborting stops both the waiting and further attempts. */
  signal?: AbortSignal;
  /**
   * For tests: a deterministic source in [0, 1).
   * @defaultValue `Math.random`
   */
  random?: () => number;
  /** False ends the attempts and rethrows the error. */
  isRetryable: (error: unknown) => boolean;
  /** Seconds the server asked us to wait, if it said. */
  retryAfterSeconds?: (error: unknown) => number | undefined;
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Exponential backoff with full jitter; a server's retry-after wins when it is longer.
 *
 * @param operation - Called with the attempt number, from 1.
 * @param options - Attempts, delays and the retry test.
 * @returns What the first successful attempt resolved to.
 * @throws The last attempt's error when it is not retryable or the attempts are used up; the
 *   signal's reason when aborted.
 */
export async function withRetries<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      options.signal?.throwIfAborted();
      if (attempt >= options.attempts || !options.isRetryable(error)) throw error;
      const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
      const jittered = Math.round(random() * exponential);
      const requested = (options.retryAfterSeconds?.(error) ?? 0) * 1000;
      const delayMs = Math.min(options.maxDelayMs, Math.max(jittered, requested));
      options.onRetry?.(error, attempt, delayMs);
      await sleep(delayMs, options.signal);
    }
  }
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
