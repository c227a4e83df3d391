import type { CompactionCheckJob, EnqueueOptions } from '@compactor/core';
import { ValidationError } from '@compactor/core';

/** Automatic checks wait this long by default, so a burst of appends produces one check. */
export const defaultDebounceMs = 1_000;

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
