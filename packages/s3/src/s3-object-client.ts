/** A bucket and key. */
export interface ObjectLocation {
  bucket: string;
  key: string;
}

/** One object to write. */
export interface PutObjectRequest extends ObjectLocation {
  body: Uint8Array;
  contentType?: string;
  /** User metadata (sent as `x-amz-meta-<name>`): lowercase names, ASCII values. */
  metadata?: Record<string, string>;
  /** Object tags (sent as `x-amz-tagging`); lifecycle rules can filter on them, not on metadata. */
  tags?: Record<string, string>;
  /** SSE-KMS with this key: sends `ServerSideEncryption: 'aws:kms'` and `SSEKMSKeyId`. */
  kmsKeyId?: string;
  /** Conditional writes: `'*'` creates only; an ETag replaces only that version (412 otherwise). */
  ifNoneMatch?: '*';
  /** Replace only the version with this ETag. */
  ifMatch?: string;
}

/** An object read back. */
export interface StoredObject {
  body: Uint8Array;
  metadata: Record<string, string>;
  contentType: string | undefined;
  etag: string | undefined;
}

/** An object's headers, without its body. */
export interface ObjectHead {
  metadata: Record<string, string>;
  contentType: string | undefined;
  contentLength: number | undefined;
  etag: string | undefined;
  /** `aws:kms` when the object is encrypted with SSE-KMS (as reported by the store). */
  serverSideEncryption: string | undefined;
  kmsKeyId: string | undefined;
}

/** One page of a listing. */
export interface ListObjectsRequest {
  bucket: string;
  prefix: string;
  /** From the previous page; absent for the first. */
  continuationToken?: string;
}

/** The keys of one page, and the token of the next (undefined on the last). */
export interface ListObjectsPage {
  keys: string[];
  nextContinuationToken: string | undefined;
}

/**
 * The narrow S3 surface the artifact store uses: five calls with only the fields we need, so any
 * S3-compatible client (or a recording wrapper in tests) can stand behind it. Implementations
 * throw typed Compactor errors (see `s3-errors.ts`), and report a missing object as `null`.
 */
export interface S3ObjectClient {
  /** Write an object; a lost condition is a retryable `concurrency` error. */
  putObject(request: PutObjectRequest): Promise<{ etag: string | undefined }>;
  /** Read an object, or null when it is missing. */
  getObject(location: ObjectLocation): Promise<StoredObject | null>;
  /** Read an object's headers, or null when it is missing. */
  headObject(location: ObjectLocation): Promise<ObjectHead | null>;
  deleteObject(location: ObjectLocation): Promise<void>;
  /** One page of keys under a prefix, in S3's (UTF-8 binary) key order. */
  listObjects(request: ListObjectsRequest): Promise<ListObjectsPage>;
}
