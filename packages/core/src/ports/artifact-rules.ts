import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { ArtifactSensitivity } from '../plan/records.js';
import { ARTIFACT_ID_PATTERN, type ArtifactMetadata } from './artifact-store.js';

/**
 * The rules every ArtifactStore adapter shares, beside the port so they exist once: how an id is
 * derived, how sensitivities order, when an artifact expires, and how a second put strengthens
 * the first. Pure computation (hashing included); the adapters do the I/O.
 */

/**
 * Hex SHA-256 of the content (UTF-8 for strings), as stored in `ArtifactMetadata.sha256`.
 *
 * @param content - The artifact's content.
 * @returns The hash, in hex.
 */
export function artifactContentSha256(content: string | Uint8Array): string {
  // A platform-neutral SHA-256: core runs in browsers too (the inspector bundles it).
  return bytesToHex(sha256(typeof content === 'string' ? utf8ToBytes(content) : content));
}

/**
 * `art_` + hex SHA-256 of (`tenantId` + U+0000 + the content's hex SHA-256): content-addressed and
 * scoped per tenant, so two tenants storing the same bytes get different ids.
 *
 * @param tenantId - The owning tenant.
 * @param contentSha256 - The content's hex SHA-256.
 * @param sha256Hex - The same digest as `artifactContentSha256`, computed natively by an adapter that can (ADR-0348).
 * @returns The artifact id.
 */
export function artifactIdFor(
  tenantId: string,
  contentSha256: string,
  sha256Hex: (text: string) => string = artifactContentSha256,
): string {
  return `art_${sha256Hex(`${tenantId}\u0000${contentSha256}`)}`;
}

/**
 * Well-formed ids only: anything else reads as not found and never becomes a path or a key.
 *
 * @param value - A claimed artifact id.
 * @returns True when it matches `ARTIFACT_ID_PATTERN`.
 */
export function isArtifactId(value: unknown): value is string {
  return typeof value === 'string' && ARTIFACT_ID_PATTERN.test(value);
}

const SENSITIVITY_RANK: Record<ArtifactSensitivity, number> = {
  public: 0,
  internal: 1,
  confidential: 2,
  restricted: 3,
};

/**
 * The stricter of two sensitivities: a second put can raise an artifact's, never lower it.
 *
 * @param a - One sensitivity (kept on a tie).
 * @param b - The other.
 * @returns The stricter.
 */
export function stricterSensitivity(a: ArtifactSensitivity, b: ArtifactSensitivity): ArtifactSensitivity {
  return SENSITIVITY_RANK[b] > SENSITIVITY_RANK[a] ? b : a;
}

/**
 * Whether content of this sensitivity needs a permission to be read (and so must not leak by preview).
 *
 * @param sensitivity - The artifact's sensitivity.
 * @returns True for confidential and restricted.
 */
export function sensitivityNeedsPermission(sensitivity: ArtifactSensitivity): boolean {
  return SENSITIVITY_RANK[sensitivity] >= SENSITIVITY_RANK.confidential;
}

/**
 * The expiry of a put.
 *
 * @param now - When the put happens.
 * @param ttlSeconds - Its time to live, or undefined for none.
 * @returns The ISO expiry, or undefined for never.
 */
export function artifactExpiry(now: Date, ttlSeconds: number | undefined): string | undefined {
  return ttlSeconds === undefined ? undefined : new Date(now.getTime() + ttlSeconds * 1000).toISOString();
}

/**
 * The later of two expiries, where undefined means "never" and so always wins.
 *
 * @param a - An ISO expiry, or undefined.
 * @param b - Another.
 * @returns The later (undefined when either is).
 */
export function laterExpiry(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return undefined;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/**
 * Whether an artifact has expired.
 *
 * @param expiresAt - Its ISO expiry, or undefined for never.
 * @param now - The current time.
 * @returns True at or after the expiry.
 */
export function isArtifactExpired(expiresAt: string | undefined, now: Date): boolean {
  return expiresAt !== undefined && now.getTime() >= Date.parse(expiresAt);
}

/**
 * A second put of stored content never weakens it: the stricter sensitivity and the later expiry
 * win; the id, `createdAt`, thread, labels and key of the first put stay, and `ttlSeconds` keeps
 * meaning "from createdAt to the expiry".
 *
 * @param current - The stored metadata.
 * @param sensitivity - The second put's sensitivity.
 * @param requestedExpiry - The second put's expiry, or undefined for never.
 * @returns The strengthened metadata, or `current` itself when nothing changes.
 */
export function strengthenArtifact(
  current: ArtifactMetadata,
  sensitivity: ArtifactSensitivity,
  requestedExpiry: string | undefined,
): ArtifactMetadata {
  const stricter = stricterSensitivity(current.sensitivity, sensitivity);
  const later = laterExpiry(current.expiresAt, requestedExpiry);
  if (stricter === current.sensitivity && later === current.expiresAt) return current;
  const { ttlSeconds: _previousTtl, ...rest } = current;
  return {
    ...rest,
    sensitivity: stricter,
    ...(later === undefined
      ? {}
      : { ttlSeconds: (Date.parse(later) - Date.parse(current.createdAt)) / 1000 }),
    expiresAt: later,
  };
}
