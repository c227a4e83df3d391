export { type ArtifactRecord, decodeRecord, encodeRecord } from './artifact-record.js';
export { type AwsS3ObjectClientOptions, createAwsS3ObjectClient } from './aws-s3-object-client.js';
export { auditPrefix, contentKey, recordKey, tenantSegment } from './object-keys.js';
export { OBJECT_METADATA_NAMES, objectMetadata, objectMetadataValue } from './object-metadata.js';
export { S3ArtifactStore, type S3ArtifactStoreOptions, TTL_DAYS_TAG } from './s3-artifact-store.js';
export { type ArtifactAuditLog, S3AuditLog, type S3AuditLogOptions } from './s3-audit-log.js';
export { isMissingObject, s3Error } from './s3-errors.js';
export type {
  ListObjectsPage,
  ListObjectsRequest,
  ObjectHead,
  ObjectLocation,
  PutObjectRequest,
  S3ObjectClient,
  StoredObject,
} from './s3-object-client.js';
