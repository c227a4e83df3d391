import { ValidationError } from '@compactor/core';

const VERSION_TAG = /^\s*(?:W\/)?(?:"(\d{1,15})"|(\d{1,15}))\s*$/;

/**
 * The expected thread version from `If-Match`: `3`, or `"3"` as ETags are quoted (a weak `W/"3"`
 * is read the same way). Absent = no expectation. Anything else, `*` and lists included, is a 400.
 *
 * @param header - The `If-Match` header.
 * @returns The expected version, or undefined when there is no header.
 * @throws ValidationError when the header is not one version.
 */
export function expectedVersionFromIfMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  const match = VERSION_TAG.exec(value);
  if (!match) {
    throw new ValidationError('If-Match must be one thread version, e.g. "3"', [
      { path: 'headers.if-match', message: `cannot read a version from ${JSON.stringify(value)}` },
    ]);
  }
  return Number(match[1] ?? match[2]);
}

/**
 * The ETag of a thread version.
 *
 * @param version - The thread version.
 * @returns The quoted version.
 */
export function versionTag(version: number): string {
  return `"${version}"`;
}
