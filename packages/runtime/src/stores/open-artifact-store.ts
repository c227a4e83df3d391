import type { ArtifactStore, Clock, Logger } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import type { ArtifactsConfig, RuntimeConfig } from '../config/runtime-config.js';
import type { OpenedResource } from './runtime-stores.js';

/**
 * The artifact store. Embedded: the embedded stores' own, or, beside MongoDB, a local directory
 * of its own (locked to this process unless `COMPACTOR_EMBEDDED_SHARING=shared`). S3: the adapter is loaded
 * only when configured.
 */
export async function openArtifactStore(
  config: RuntimeConfig,
  embedded: EmbeddedStores | undefined,
  clock: Clock,
  logger: Logger,
): Promise<OpenedResource<ArtifactStore>> {
  if (config.artifacts.kind === 's3') return openS3ArtifactStore(config.artifacts, clock, logger);
  if (embedded) return { value: embedded.artifacts, close: async () => {} };
  const local = await createEmbeddedStores({
    dataDir: config.dataDir,
    sharing: config.embeddedSharing ?? 'exclusive',
    ...(config.embeddedLeaseMs === undefined ? {} : { leaseMs: config.embeddedLeaseMs }),
    ...(config.embeddedCacheBytes === undefined ? {} : { cacheBytes: config.embeddedCacheBytes }),
    clock,
    logger,
  });
  return { value: local.artifacts, close: () => local.close() };
}

async function openS3ArtifactStore(
  config: Extract<ArtifactsConfig, { kind: 's3' }>,
  clock: Clock,
  logger: Logger,
): Promise<OpenedResource<ArtifactStore>> {
  const { createAwsS3ObjectClient, S3ArtifactStore } = await import('@compactor/s3');
  const client = createAwsS3ObjectClient({
    config: {
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint === undefined
        ? {}
        : {
            endpoint: config.endpoint,
            // S3-compatible stores differ in their support of the SDK's newer default checksums;
            // sending them only when an operation requires them works with all of them.
            requestChecksumCalculation: 'WHEN_REQUIRED' as const,
            responseChecksumValidation: 'WHEN_REQUIRED' as const,
          }),
      ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
    },
  });
  const store = new S3ArtifactStore({
    client,
    bucket: config.bucket,
    ...(config.prefix === undefined ? {} : { prefix: config.prefix }),
    ...(config.kmsKeyId === undefined ? {} : { encryptionKeyId: config.kmsKeyId }),
    clock,
    logger,
  });
  return { value: store, close: async () => client.destroy() };
}
