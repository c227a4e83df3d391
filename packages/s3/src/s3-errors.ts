import { CompactorError } from '@compactor/core';

/** Error names S3 (and S3-compatible stores) use for a missing object. */
const MISSING_OBJECT = new Set(['NoSuchKey', 'NotFound']);
/** A conditional write lost: someone else wrote the object first. */
const PRECONDITION_FAILED = new Set(['PreconditionFailed', 'ConditionalRequestConflict']);
const RETRYABLE_NAMES = new Set([
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'TimeoutError',
  'ThrottlingException',
]);

interface AwsErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function shapeOf(error: unknown): AwsErrorShape {
  return typeof error === 'object' && error !== null ? (error as AwsErrorShape) : {};
}

function statusOf(error: unknown): number | undefined {
  const status = shapeOf(error).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * True for "no such object" (GET NoSuchKey, HEAD 404): the store answers null, not an error.
 *
 * @param error - What the SDK threw.
 * @returns Whether the object was missing.
 */
export function isMissingObject(error: unknown): boolean {
  const name = shapeOf(error).name;
  return typeof name === 'string' && MISSING_OBJECT.has(name);
}

/**
 * Map an S3 failure to a typed error whose `isRetryable` follows the status: throttling, 5xx,
 * timeouts and network failures (no HTTP response at all) are retryable; a missing bucket, denied
 * credentials or a bad KMS key are configuration errors that retrying will not fix. A lost
 * conditional write is a retryable `concurrency` error (re-read, then write again).
 *
 * @param error - What the SDK threw.
 * @param operation - Names the call in the message and details.
 * @param bucket - The bucket, for the message and details.
 * @returns The typed error (a `CompactorError` passes through).
 */
export function s3Error(error: unknown, operation: string, bucket: string): CompactorError {
  if (CompactorError.isInstance(error)) return error;
  const shape = shapeOf(error);
  const name = typeof shape.name === 'string' ? shape.name : 'Error';
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const status = statusOf(error);
  const details = { bucket, operation, s3Error: name, httpStatus: status };
  if (PRECONDITION_FAILED.has(name) || status === 412) {
    return new CompactorError('concurrency', `S3 ${operation}: the object changed concurrently`, {
      cause: error,
      isRetryable: true,
      details,
    });
  }
  if (name === 'NoSuchBucket') {
    return new CompactorError('unavailable', `S3 bucket "${bucket}" does not exist`, {
      cause: error,
      isRetryable: false,
      details,
    });
  }
  const retryable = status === undefined || status >= 500 || status === 429 || RETRYABLE_NAMES.has(name);
  return new CompactorError(
    'unavailable',
    `S3 ${operation} failed on bucket "${bucket}": ${name}: ${message}`,
    {
      cause: error,
      isRetryable: retryable,
      details,
    },
  );
}
