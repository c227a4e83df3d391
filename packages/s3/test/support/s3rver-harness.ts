import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, type S3ClientConfig } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { createAwsS3ObjectClient } from '../../src/index.js';

export interface RunningS3rver {
  endpoint: string;
  /** The client options DESIGN.md prescribes for s3rver, pointed at this server. */
  clientConfig(overrides?: Partial<S3ClientConfig>): S3ClientConfig;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** s3rver in-process on 127.0.0.1, a random port and a temporary directory. */
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
  return {
    endpoint,
    clientConfig,
    async createBucket(name) {
      const admin = createAwsS3ObjectClient({ config: clientConfig() });
      try {
        await admin.s3.send(new CreateBucketCommand({ Bucket: name }));
      } finally {
        admin.destroy();
      }
    },
    async stop() {
      // Keep-alive sockets from the SDK would hold close() open.
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
