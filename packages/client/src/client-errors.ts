import type { ApiErrorBody, ApiErrorCode } from './api-types.js';

const clientErrorMarker = Symbol.for('compactor.client.error');
const apiErrorMarker = Symbol.for('compactor.client.api-error');
const networkErrorMarker = Symbol.for('compactor.client.network-error');

/** Every error the client throws; recognised by a marker, so duplicated module copies agree. */
export abstract class CompactorClientError extends Error {
  readonly [clientErrorMarker] = true;
  abstract readonly isRetryable: boolean;

  /**
   * Recognise a client error, also from another copy of this module.
   *
   * @param error - Anything caught.
   * @returns True for any error this client throws.
   */
  static isInstance(error: unknown): error is CompactorClientError {
    return typeof error === 'object' && error !== null && clientErrorMarker in error;
  }
}

/** The server answered with an error status. */
export class CompactorApiError extends CompactorClientError {
  readonly [apiErrorMarker] = true;
  readonly status: number;
  readonly code: ApiErrorCode | 'unknown';
  /** The server's error body, when it sent one. */
  readonly body: ApiErrorBody | undefined;
  readonly isRetryable: boolean;
  /** From `Retry-After`, when the server sent one. */
  readonly retryAfterMs: number | undefined;

  /**
   * @param status - The HTTP status.
   * @param body - The error body, when the server sent one.
   * @param retryAfterMs - From `Retry-After`, when sent.
   */
  constructor(status: number, body: ApiErrorBody | undefined, retryAfterMs: number | undefined) {
    super(body?.error.message ?? `HTTP ${status}`);
    this.name = 'CompactorApiError';
    this.status = status;
    this.code = body?.error.code ?? 'unknown';
    this.body = body;
    this.retryAfterMs = retryAfterMs;
    this.isRetryable = isRetryableStatus(status);
  }

  /**
   * Recognise an API error, also from another copy of this module.
   *
   * @param error - Anything caught.
   * @returns True for an error status answer.
   */
  static override isInstance(error: unknown): error is CompactorApiError {
    return typeof error === 'object' && error !== null && apiErrorMarker in error;
  }

  /**
   * The field issues of a `validation` error.
   *
   * @returns The issues, or none.
   */
  get issues() {
    return this.body?.error.issues ?? [];
  }

  /**
   * The error's details (e.g. `currentVersion` of a conflict).
   *
   * @returns The details, or an empty object.
   */
  get details() {
    return this.body?.error.details ?? {};
  }
}

/** No answer: connection refused or reset, DNS failure, timeout. */
export class CompactorNetworkError extends CompactorClientError {
  readonly [networkErrorMarker] = true;
  readonly isRetryable = true;

  /**
   * Recognise a network error, also from another copy of this module.
   *
   * @param error - Anything caught.
   * @returns True when no answer came.
   */
  static override isInstance(error: unknown): error is CompactorNetworkError {
    return typeof error === 'object' && error !== null && networkErrorMarker in error;
  }

  /**
   * @param message - What failed.
   * @param options - The underlying error.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'CompactorNetworkError';
  }
}

/**
 * 429 and 5xx may succeed later; any other 4xx will fail the same way again.
 *
 * @param status - An HTTP status.
 * @returns Whether a retry may succeed.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
