import { createHash } from 'node:crypto';

/**
 * Core's `artifactContentSha256` (the same hex digest of the same UTF-8 bytes, property-tested), by
 * Node's native SHA-256: core's is platform-neutral JavaScript (it runs in the inspector page) and took
 * most of an artifact put's CPU when a planning run externalizes dozens of results (ADR-0281).
 *
 * @param content - The artifact's content (strings as UTF-8).
 * @returns The hash, in hex.
 */
export function contentSha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}
