import { CompactorError, ValidationError } from '@compactor/core';

/** Server code 20 (IllegalOperation) with this text: a standalone mongod cannot run transactions. */
const TRANSACTIONS_NEED_REPLICA_SET =
  /Transaction numbers are only allowed on a replica set member or mongos/i;

/** Server code for a document over 16 MB, and the driver's own message when it refuses to send one. */
const DOCUMENT_TOO_LARGE_CODE = 10334;
const DOCUMENT_TOO_LARGE = /larger than (the )?maximum|BSONObjectTooLarge|object to insert too large/i;

const UNAVAILABLE_ERROR_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoTopologyClosedError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
]);

/**
 * Turn a driver error that is not a domain outcome into a typed error: lost connections and
 * server selection timeouts are retryable `unavailable`; a standalone server (no transactions)
 * is a permanent `unavailable`; a document over 16 MB is a ValidationError. Typed errors and
 * anything unrecognised pass through unchanged (an unknown failure is a bug to see, not to rename).
 *
 * @param error - What the driver threw.
 * @param operation - Names the operation in the message.
 * @returns The error to throw.
 */
export function mapMongoError(error: unknown, operation: string): unknown {
  if (CompactorError.isInstance(error)) return error;
  const name = errorName(error);
  const message = error instanceof Error ? error.message : String(error);
  if (TRANSACTIONS_NEED_REPLICA_SET.test(message)) {
    return new CompactorError(
      'unavailable',
      `${operation}: MongoDB transactions need a replica set (start mongod with --replSet and connect with ?replicaSet=...)`,
      { cause: error, isRetryable: false },
    );
  }
  if (errorCode(error) === DOCUMENT_TOO_LARGE_CODE || DOCUMENT_TOO_LARGE.test(message)) {
    return new ValidationError(
      `${operation}: a document exceeds MongoDB's 16 MB limit`,
      [{ path: '', message: 'document too large for MongoDB (16 MB per event)' }],
      { cause: error },
    );
  }
  if (UNAVAILABLE_ERROR_NAMES.has(name) || hasLabel(error, 'RetryableWriteError')) {
    return new CompactorError('unavailable', `${operation}: MongoDB is unavailable (${message})`, {
      cause: error,
      isRetryable: true,
    });
  }
  return error;
}

function errorName(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

function hasLabel(error: unknown, label: string): boolean {
  const check = (error as { hasErrorLabel?: (label: string) => boolean } | null)?.hasErrorLabel;
  return typeof check === 'function' && check.call(error, label) === true;
}
