import { randomUUID } from 'node:crypto';
import { testArtifactStore } from '@compactor/testkit/contracts/artifact-store';
import { type RunningS3rver, startS3rver } from '@compactor/testkit/s3rver';
import { afterAll, beforeAll, describe } from 'vitest';
import { createAwsS3ObjectClient, S3ArtifactStore, type S3ArtifactStoreOptions } from '../src/index.js';

const DEFAULT_BUCKET = 'compactor-artifacts';
const RESTRICTED_BUCKET = 'compactor-restricted';
const CONFIDENTIAL_BUCKET = 'compactor-confidential';

let server: RunningS3rver;
let objects: ReturnType<typeof createAwsS3ObjectClient>;

beforeAll(async () => {
  server = await startS3rver();
  for (const bucket of [DEFAULT_BUCKET, RESTRICTED_BUCKET, CONFIDENTIAL_BUCKET])
    await server.createBucket(bucket);
  objects = createAwsS3ObjectClient({ config: server.clientConfig() });
});

afterAll(async () => {
  objects?.destroy();
  await server?.stop();
});

/** A store on a fresh prefix, with a way to overwrite its content behind its back. */
function contractStore(options: Omit<S3ArtifactStoreOptions, 'client' | 'bucket'>) {
  return async () => {
    const store = new S3ArtifactStore({
      client: objects,
      bucket: DEFAULT_BUCKET,
      prefix: `run-${randomUUID()}`,
      ...options,
    });
    return {
      store,
      async corruptContent(artifactId: string, tenantId: string) {
        const location = await store.locate(tenantId, artifactId);
        if (location === null) throw new Error(`no content object for ${artifactId}`);
        await objects.putObject({ ...location, body: new TextEncoder().encode('tampered bytes') });
      },
    };
  };
}

describe('S3 artifact store on s3rver, one bucket', () => {
  testArtifactStore('s3 (s3rver, one bucket)', (clock) => contractStore({ clock })());
});

describe('S3 artifact store on s3rver, a bucket and SSE-KMS key per sensitivity', () => {
  testArtifactStore('s3 (s3rver, buckets per sensitivity, SSE-KMS)', (clock) =>
    contractStore({
      clock,
      buckets: { confidential: CONFIDENTIAL_BUCKET, restricted: RESTRICTED_BUCKET },
      encryptionKeyId: 'alias/compactor-default',
      encryptionKeyIds: { restricted: 'alias/compactor-restricted' },
    })(),
  );
});
