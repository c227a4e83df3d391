import type { CompactionCheckJob, EnqueueOptions } from '@compactor/core';
import { ValidationError } from '@compactor/core';

/** Automatic checks wait this long by default, so a burst of appends produces one check. */
export const defaultDebounceMs = 1_000;

/**
 * A thread receiving events more often than the debounce would never be checked (each request
 * restarts the timer); so a debounce window is never longer than this after its first request.
 */
export const defaultMaxWaitMs = 10_000;

/**
 * The delay before a check may run. Automatic checks default to the queue's debounce; manual
 * requests default to none, because someone is waiting for them.
 */
export function debounceDelay(
  job: CompactionCheckJob,
  options: EnqueueOptions | undefined,
  fallbackMs: number,
): number {
  const requested = options?.debounceMs ?? (job.reason === 'manual' ? 0 : fallbackMs);
  if (!Number.isFinite(requested) || requested < 0) {
    throw new ValidationError('debounceMs must be a finite number of milliseconds, at least 0', [
      { path: 'debounceMs', message: `got ${requested}` },
    ]);
  }
  return Math.round(requested);
}

/** The longest a debounce window may stay open: the request's `maxWaitMs`, else the queue's. */
export function maxWaitOf(options: EnqueueOptions | undefined, fallbackMs: number): number {
  const maxWaitMs = options?.maxWaitMs ?? fallbackMs;
  if (!Number.isFinite(maxWaitMs) || maxWaitMs < 0) {
    throw new ValidationError('maxWaitMs must be a finite number of milliseconds, at least 0', [
      { path: 'maxWaitMs', message: `got ${maxWaitMs}` },
    ]);
  }
  return Math.round(maxWaitMs);
}

/**
 * The delay of a request that replaces a check still in its debounce window, which opened at
 * `windowStartedAt`: the debounce restarts, but never past `windowStartedAt + maxWaitMs`.
 */
export function delayWithinWindow(
  debounceMs: number,
  windowStartedAt: number,
  maxWaitMs: number,
  now: number,
): number {
  const remaining = windowStartedAt + maxWaitMs - now;
  return Math.max(0, Math.min(debounceMs, remaining));
}
