/// <reference path="./s3rver-module.d.ts" />
/**
 * s3rver in-process on 127.0.0.1, a random port and a temporary directory, with the S3 client
 * options DESIGN.md prescribes for it. Shared by the S3 adapter's, the runtime's and the
 * end-to-end tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** A running s3rver and helpers for its buckets. */
export interface RunningS3rver {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Client options for this server: path-style, checksums only when required, s3rver's keys. */
  clientConfig(overrides?: Partial<S3ClientConfig>): S3ClientConfig;
  /** Create a bucket. */
  createBucket(name: string): Promise<void>;
  /** Every key in a bucket, optionally under a prefix. */
  listKeys(bucket: string, prefix?: string): Promise<string[]>;
  /** Stop the server and delete its directory. */
  stop(): Promise<void>;
}

/**
 * Start s3rver on a random loopback port over a new temporary directory.
 *
 * @returns The running server.
 */
export async function startS3rver(): Promise<RunningS3rver> {
  const directory = await mkdtemp(join(tmpdir(), 'compactor-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig = (overrides: Partial<S3ClientConfig> = {}): S3ClientConfig => ({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    ...overrides,
  });
  const admin = new S3Client(clientConfig());
  return {
    endpoint,
    clientConfig,
    async createBucket(name) {
      await admin.send(new CreateBucketCommand({ Bucket: name }));
    },
    async listKeys(bucket, prefix) {
      const output = await admin.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (output.Contents ?? []).flatMap((item) => (item.Key ? [item.Key] : []));
    },
    async stop() {
      admin.destroy();
      // Keep-alive sockets from the SDK would hold close() open.
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
