import Anthropic from '@anthropic-ai/sdk';
import { CompactorError, NotFoundError, ValidationError } from '@compactor/core';

/**
 * An SDK failure as a typed core error. Rate limits (429), server errors (5xx, 529 overloaded),
 * timeouts and connection failures are retryable; the caller's mistakes (400, 401, 403, 404,
 * 413, 422) are not.
 *
 * @param error - What the SDK threw (a `CompactorError` is returned as it is).
 * @param model - The model asked for, for the details and a 404's `NotFoundError`.
 * @returns `ValidationError` (400, 413, 422), `NotFoundError` (404), or a `CompactorError` coded
 *   `access_denied` (401, 403) or `unavailable` (anything else).
 */
export function mapAnthropicError(error: unknown, model: string): CompactorError {
  if (CompactorError.isInstance(error)) return error;
  if (error instanceof Anthropic.APIConnectionError) {
    return new CompactorError('unavailable', `Anthropic count_tokens unreachable: ${error.message}`, {
      cause: error,
      isRetryable: true,
    });
  }
  if (error instanceof Anthropic.APIError) {
    const status = error.status ?? 0;
    const details = { status, model, requestId: error.requestID ?? undefined };
    if (status === 400 || status === 413 || status === 422) {
      return new ValidationError(`Anthropic rejected the count_tokens request: ${error.message}`, [], {
        cause: error,
        details,
      });
    }
    if (status === 401 || status === 403) {
      return new CompactorError('access_denied', `Anthropic refused the credentials: ${error.message}`, {
        cause: error,
        details,
      });
    }
    if (status === 404) return new NotFoundError('Anthropic model', model);
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    return new CompactorError(
      'unavailable',
      `Anthropic count_tokens failed with ${status}: ${error.message}`,
      {
        cause: error,
        isRetryable: retryable,
        details,
      },
    );
  }
  return new CompactorError('unavailable', `Anthropic count_tokens failed: ${String(error)}`, {
    cause: error,
  });
}
