import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  const hash = createHash('sha256');
  if (typeof data === 'string') hash.update(data, 'utf8');
  else hash.update(data);
  return hash.digest('hex');
}

/** Core's documented derivation (see ARTIFACT_ID_PATTERN): content-addressed, scoped per tenant. */
export function artifactIdFor(tenantId: string, contentSha256: string): string {
  return `art_${sha256Hex(`${tenantId}\u0000${contentSha256}`)}`;
}
