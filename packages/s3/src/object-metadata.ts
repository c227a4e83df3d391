import type { ArtifactMetadata } from '@compactor/core';

/**
 * The artifact's metadata as S3 user metadata (`x-amz-meta-*`) on the content object, so the
 * bucket alone tells what an object is, whose, how sensitive, and until when. Values are
 * percent-encoded (headers are ASCII); labels stay in the metadata record only (S3 caps user
 * metadata at 2 KB).
 */
export const OBJECT_METADATA_NAMES = {
  artifactId: 'artifact-id',
  tenantId: 'tenant-id',
  threadId: 'thread-id',
  sensitivity: 'sensitivity',
  sha256: 'sha256',
  sizeBytes: 'size-bytes',
  createdAt: 'created-at',
  ttlSeconds: 'ttl-seconds',
  expiresAt: 'expires-at',
  encryptionKeyId: 'encryption-key-id',
} as const;

/**
 * The user metadata to put on a content object.
 *
 * @param metadata - The artifact's metadata.
 * @param kmsKeyId - The SSE-KMS key the object is written with, if any.
 * @returns Percent-encoded values under {@link OBJECT_METADATA_NAMES}; undefined fields are left out.
 */
export function objectMetadata(
  metadata: ArtifactMetadata,
  kmsKeyId: string | undefined,
): Record<string, string> {
  const names = OBJECT_METADATA_NAMES;
  const values: Record<string, string | undefined> = {
    [names.artifactId]: metadata.artifactId,
    [names.tenantId]: metadata.tenantId,
    [names.threadId]: metadata.threadId,
    [names.sensitivity]: metadata.sensitivity,
    [names.sha256]: metadata.sha256,
    [names.sizeBytes]: String(metadata.sizeBytes),
    [names.createdAt]: metadata.createdAt,
    [names.ttlSeconds]: metadata.ttlSeconds === undefined ? undefined : String(metadata.ttlSeconds),
    [names.expiresAt]: metadata.expiresAt,
    [names.encryptionKeyId]: kmsKeyId,
  };
  const encoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) encoded[name] = encodeURIComponent(value);
  }
  return encoded;
}

/**
 * Read one value back (user metadata names arrive lowercased).
 *
 * @param metadata - The object's user metadata.
 * @param name - One of {@link OBJECT_METADATA_NAMES}.
 * @returns The decoded value, or undefined when absent.
 */
export function objectMetadataValue(metadata: Record<string, string>, name: string): string | undefined {
  const value = metadata[name] ?? metadata[name.toLowerCase()];
  return value === undefined ? undefined : decodeURIComponent(value);
}
