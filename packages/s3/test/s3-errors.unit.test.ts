import { CompactorError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { isMissingObject, s3Error } from '../src/s3-errors.js';

/** What the SDK throws: a named error with the HTTP status in `$metadata` (none when no response came). */
function awsError(name: string, httpStatusCode?: number): Error {
  return Object.assign(new Error(`${name} happened`), {
    name,
    $metadata: httpStatusCode === undefined ? { attempts: 1 } : { httpStatusCode },
  });
}

describe('s3Error', () => {
  it.each([
    ['NoSuchBucket', 404, 'unavailable', false],
    ['AccessDenied', 403, 'unavailable', false],
    ['KMS.NotFoundException', 400, 'unavailable', false],
    ['InternalError', 500, 'unavailable', true],
    ['ServiceUnavailable', 503, 'unavailable', true],
    ['SlowDown', 503, 'unavailable', true],
    ['TooManyRequests', 429, 'unavailable', true],
    ['PreconditionFailed', 412, 'concurrency', true],
    ['ConditionalRequestConflict', 409, 'concurrency', true],
  ] as const)('maps %s (%i) to a %s error, retryable: %s', (name, status, code, retryable) => {
    const original = awsError(name, status);
    const mapped = s3Error(original, 'putObject', 'bucket-x');
    expect(mapped.code).toBe(code);
    expect(mapped.isRetryable).toBe(retryable);
    expect(mapped.cause).toBe(original);
    expect(mapped.details).toMatchObject({
      bucket: 'bucket-x',
      operation: 'putObject',
      s3Error: name,
      httpStatus: status,
    });
  });

  it('treats a failure without any HTTP response (refused, reset, timed out) as retryable', () => {
    const refused = Object.assign(awsError('Error'), { code: 'ECONNREFUSED' });
    expect(s3Error(refused, 'getObject', 'b').isRetryable).toBe(true);
    expect(s3Error(awsError('TimeoutError'), 'getObject', 'b').isRetryable).toBe(true);
  });

  it('passes typed errors through', () => {
    const typed = new CompactorError('integrity', 'bad bytes');
    expect(s3Error(typed, 'getObject', 'b')).toBe(typed);
  });
});

describe('isMissingObject', () => {
  it('recognises NoSuchKey and a HEAD 404, nothing else', () => {
    expect(isMissingObject(awsError('NoSuchKey', 404))).toBe(true);
    expect(isMissingObject(awsError('NotFound', 404))).toBe(true);
    expect(isMissingObject(awsError('NoSuchBucket', 404))).toBe(false);
    expect(isMissingObject(new Error('NoSuchKey'))).toBe(false);
    expect(isMissingObject(null)).toBe(false);
  });
});
