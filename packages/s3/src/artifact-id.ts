import { createHash } from 'node:crypto';
import { ARTIFACT_ID_PATTERN } from '@compactor/core';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * `art_` + SHA-256 of (tenant id, U+0000, hex SHA-256 of the content): the id core documents with
 * ARTIFACT_ID_PATTERN, the same in every adapter, so ids mean the same across stores.
 */
export function artifactIdFor(tenantId: string, contentSha256: string): string {
  return `art_${sha256Hex(`${tenantId}\u0000${contentSha256}`)}`;
}

export function isArtifactId(value: string): boolean {
  return ARTIFACT_ID_PATTERN.test(value);
}
