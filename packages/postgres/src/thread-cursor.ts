import { ValidationError } from '@compactor/core';

/** listThreads pages by thread id; the cursor is the last id of the previous page, opaque to callers. */
export function encodeThreadCursor(lastThreadId: string): string {
  return Buffer.from(JSON.stringify({ after: lastThreadId }), 'utf8').toString('base64url');
}

export function decodeThreadCursor(cursor: string): string {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const after = (decoded as { after?: unknown } | null)?.after;
    if (typeof after === 'string') return after;
  } catch {
    // Fall through to the typed error below.
  }
  throw new ValidationError('invalid cursor', [{ path: 'cursor', message: 'not a cursor from listThreads' }]);
}
