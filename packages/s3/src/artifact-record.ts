import type { ArtifactMetadata } from '@compactor/core';
import type { ObjectLocation } from './s3-object-client.js';

/**
 * The metadata record of an artifact, one small JSON object per artifact id under its tenant. It
 * holds the mutable part of the metadata (sensitivity raised, expiry extended by a
 * later put) and points at the content object. Written after the content: it is the commit point.
 */
export interface ArtifactRecord {
  formatVersion: 1;
  metadata: ArtifactMetadata;
  content: ObjectLocation;
}

/**
 * The record as stored (UTF-8 JSON).
 *
 * @param record - The record.
 * @returns Its bytes.
 */
export function encodeRecord(record: ArtifactRecord): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(record));
}

/**
 * Read a stored record back.
 *
 * @param bytes - The record object's body.
 * @returns The record, or null when the bytes are not a record of this format (treated as missing, never trusted).
 */
export function decodeRecord(bytes: Uint8Array): ArtifactRecord | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as Partial<ArtifactRecord>;
    if (parsed.formatVersion !== 1 || parsed.metadata === undefined || parsed.content === undefined)
      return null;
    return {
      formatVersion: 1,
      // JSON drops undefined members; the port's metadata always has `expiresAt`.
      metadata: { ...parsed.metadata, expiresAt: parsed.metadata.expiresAt ?? undefined },
      content: parsed.content,
    };
  } catch {
    return null;
  }
}
