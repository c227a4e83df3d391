import { CompactorError } from '@compactor/core';

/**
 * A permanent failure is never retried: a typed Compactor error that says it is not retryable
 * (a ValidationError among them). Anything else (network errors, timeouts, plain bugs) is retried,
 * because a retry is cheap and a lost check is not.
 *
 * @param error - What the handler threw.
 * @returns True when the job must not be retried.
 */
export function isPermanentFailure(error: unknown): boolean {
  return CompactorError.isInstance(error) && !error.isRetryable;
}

/** An error reduced to what logs and job records keep. */
export interface FailureSummary {
  name: string;
  message: string;
  code?: string;
}

export function summarizeFailure(error: unknown): FailureSummary {
  if (CompactorError.isInstance(error)) return { name: error.name, message: error.message, code: error.code };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
