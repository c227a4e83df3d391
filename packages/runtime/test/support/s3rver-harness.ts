import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { temporaryDirectory } from './temporary-directory.js';

export interface RunningS3rver {
  endpoint: string;
  createBucket(name: string): Promise<void>;
  listKeys(bucket: string, prefix?: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** s3rver in-process on 127.0.0.1, a random port and a temporary directory. */
export async function startS3rver(): Promise<RunningS3rver> {
  const directory = await temporaryDirectory('compactor-runtime-s3rver-');
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: directory.path, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  // The options DESIGN.md prescribes for s3rver.
  const admin = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    endpoint,
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
      await directory.remove();
    },
  };
}
