import { createHash } from 'node:crypto';
import { ValidationError } from '@compactor/core';

/** Longest encoded name kept readable; longer ones are hashed (file names stop at 255 bytes). */
const MAX_READABLE_SEGMENT = 120;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Bytes kept as they are: lowercase only, so case-insensitive file systems cannot merge two ids. */
function isPlainByte(byte: number): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x5f;
}

/**
 * Turn a tenant or thread id into one safe file-name segment. Every byte outside [a-z0-9_-] becomes
 * `~` + two hex digits, so `/`, `\`, `.`, NUL and uppercase can never form a path, a `..` or a
 * collision (ids with lone surrogates, which UTF-8 cannot tell apart, are a ValidationError); names longer than 120 characters become `~h` + the id's SHA-256 (the files keep the
 * original ids inside). The mapping is injective: `~` is always escaped itself.
 *
 * @param id - The tenant or thread id.
 * @param what - The id's field name, for the error.
 * @returns The segment.
 * @throws ValidationError for an empty id or one with lone surrogates.
 */
export function encodePathSegment(id: string, what: string): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new ValidationError(`${what} must be a non-empty string`, [{ path: what, message: 'required' }]);
  }
  if (LONE_SURROGATE.test(id)) {
    // UTF-8 would turn every lone surrogate into U+FFFD, so two different ids could share a file.
    throw new ValidationError(`${what} is not well-formed Unicode`, [
      { path: what, message: 'lone surrogate' },
    ]);
  }
  let encoded = '';
  for (const byte of Buffer.from(id, 'utf8')) {
    encoded += isPlainByte(byte) ? String.fromCharCode(byte) : `~${byte.toString(16).padStart(2, '0')}`;
  }
  if (encoded.length <= MAX_READABLE_SEGMENT) return encoded;
  return `~h${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}
