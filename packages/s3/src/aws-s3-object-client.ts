import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { isMissingObject, s3Error } from './s3-errors.js';
import type {
  ListObjectsPage,
  ListObjectsRequest,
  ObjectHead,
  ObjectLocation,
  PutObjectRequest,
  S3ObjectClient,
  StoredObject,
} from './s3-object-client.js';

/** An S3 client to use, or the configuration of one to create. */
export type AwsS3ObjectClientOptions =
  /** An S3Client you own (its configuration is yours). */
  | { client: S3Client }
  /** Or the configuration of a client the adapter creates (region, endpoint, credentials, ...). */
  | { config: S3ClientConfig };

/**
 * The S3ObjectClient port on `@aws-sdk/client-s3` v3, with S3 failures mapped to typed errors.
 *
 * @param options - A client you own, or the configuration of one to create.
 * @returns The port, the underlying `s3` client, and `destroy()` to release its sockets.
 */
export function createAwsS3ObjectClient(
  options: AwsS3ObjectClientOptions,
): S3ObjectClient & { readonly s3: S3Client; destroy(): void } {
  const s3 = 'client' in options ? options.client : new S3Client(options.config);
  return {
    s3,
    destroy: () => s3.destroy(),

    async putObject(request: PutObjectRequest) {
      try {
        const output = await s3.send(
          new PutObjectCommand({
            Bucket: request.bucket,
            Key: request.key,
            Body: request.body,
            ContentLength: request.body.byteLength,
            ContentType: request.contentType,
            Metadata: request.metadata,
            Tagging: request.tags === undefined ? undefined : new URLSearchParams(request.tags).toString(),
            ...(request.kmsKeyId === undefined
              ? {}
              : { ServerSideEncryption: 'aws:kms' as const, SSEKMSKeyId: request.kmsKeyId }),
            IfNoneMatch: request.ifNoneMatch,
            IfMatch: request.ifMatch,
          }),
        );
        return { etag: output.ETag };
      } catch (error) {
        throw s3Error(error, 'putObject', request.bucket);
      }
    },

    async getObject(location: ObjectLocation): Promise<StoredObject | null> {
      try {
        const output = await s3.send(new GetObjectCommand({ Bucket: location.bucket, Key: location.key }));
        const body = output.Body === undefined ? new Uint8Array() : await output.Body.transformToByteArray();
        return {
          body,
          metadata: output.Metadata ?? {},
          contentType: output.ContentType,
          etag: output.ETag,
        };
      } catch (error) {
        if (isMissingObject(error)) return null;
        throw s3Error(error, 'getObject', location.bucket);
      }
    },

    async headObject(location: ObjectLocation): Promise<ObjectHead | null> {
      try {
        const output = await s3.send(new HeadObjectCommand({ Bucket: location.bucket, Key: location.key }));
        return {
          metadata: output.Metadata ?? {},
          contentType: output.ContentType,
          contentLength: output.ContentLength,
          etag: output.ETag,
          serverSideEncryption: output.ServerSideEncryption,
          kmsKeyId: output.SSEKMSKeyId,
        };
      } catch (error) {
        // HEAD has no body: a missing bucket is a bare 404 too, indistinguishable from a missing key.
        if (isMissingObject(error)) return null;
        throw s3Error(error, 'headObject', location.bucket);
      }
    },

    async deleteObject(location: ObjectLocation): Promise<void> {
      try {
        await s3.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: location.key }));
      } catch (error) {
        throw s3Error(error, 'deleteObject', location.bucket);
      }
    },

    async listObjects(request: ListObjectsRequest): Promise<ListObjectsPage> {
      try {
        const output = await s3.send(
          new ListObjectsV2Command({
            Bucket: request.bucket,
            Prefix: request.prefix,
            ContinuationToken: request.continuationToken,
          }),
        );
        const keys = (output.Contents ?? []).flatMap((item) => (item.Key === undefined ? [] : [item.Key]));
        return { keys, nextContinuationToken: output.IsTruncated ? output.NextContinuationToken : undefined };
      } catch (error) {
        throw s3Error(error, 'listObjects', request.bucket);
      }
    },
  };
}
