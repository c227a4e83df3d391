import { CompactorError, ValidationError } from '@compactor/core';

/** SQLSTATE of a unique-index violation: a racing writer took the same key first. */
export const UNIQUE_VIOLATION = '23505';

/** Connection-level failures worth retrying: the server went away, restarts, or refuses for now. */
const UNAVAILABLE_SQLSTATE_CLASSES = ['08', '53', '57'];
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** SQLSTATEs of a value PostgreSQL cannot hold (a field over 1 GB, a malformed string). */
const TOO_LARGE_OR_MALFORMED = new Set(['54000', '22P05', '22021']);

export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether a driver error is a unique violation (SQLSTATE 23505).
 *
 * @param error - Anything caught from the driver.
 * @returns True for a unique violation.
 */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === UNIQUE_VIOLATION;
}

/**
 * Turn a driver error that is not a domain outcome into a typed error: lost or refused
 * connections and server shutdowns are retryable `unavailable`; a value PostgreSQL cannot store
 * is a ValidationError. Typed errors and anything unrecognised pass through unchanged (an unknown
 * failure is a bug to see, not to rename).
 *
 * @param error - What the driver threw.
 * @param operation - Names the operation in the message.
 * @returns The error to throw.
 */
export function mapPostgresError(error: unknown, operation: string): unknown {
  if (CompactorError.isInstance(error)) return error;
  const code = sqlState(error) ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (TOO_LARGE_OR_MALFORMED.has(code)) {
    return new ValidationError(
      `${operation}: PostgreSQL cannot store this value (${message})`,
      [{ path: '', message: 'value too large or malformed for PostgreSQL' }],
      { cause: error },
    );
  }
  const unavailable =
    UNAVAILABLE_SQLSTATE_CLASSES.some((prefix) => code.startsWith(prefix)) ||
    UNAVAILABLE_NODE_CODES.has(code) ||
    UNAVAILABLE_MESSAGES.test(message);
  if (unavailable) {
    return new CompactorError('unavailable', `${operation}: PostgreSQL is unavailable (${message})`, {
      cause: error,
      isRetryable: true,
    });
  }
  return error;
}
