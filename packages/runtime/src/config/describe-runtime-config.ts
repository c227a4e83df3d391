import type { RuntimeConfig } from './runtime-config.js';

const HIDDEN = '[redacted]';

/**
 * A URL with its password (and user name) replaced, for logs.
 *
 * @param value - The URL.
 * @returns The redacted URL, or `[redacted]` when the value is not a URL.
 */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = HIDDEN;
    if (url.username) url.username = HIDDEN;
    return url.toString();
  } catch {
    return HIDDEN;
  }
}

function describeStore(config: RuntimeConfig): Record<string, unknown> {
  const { store } = config;
  if (store.kind === 'mongo') return { kind: 'mongo', uri: redactUrl(store.uri), dbName: store.dbName };
  if (store.kind === 'postgres') {
    return { kind: 'postgres', url: redactUrl(store.url), schema: store.schema, poolSize: store.poolSize };
  }
  return { kind: 'embedded', dataDir: config.dataDir, sharing: config.embeddedSharing ?? 'exclusive' };
}

/**
 * The configuration as it is safe to log at start: modes and locations, no secrets.
 *
 * @param config - The parsed configuration.
 * @returns A loggable object.
 */
export function describeRuntimeConfig(config: RuntimeConfig): Record<string, unknown> {
  return {
    store: describeStore(config),
    artifacts:
      config.artifacts.kind === 's3'
        ? {
            kind: 's3',
            bucket: config.artifacts.bucket,
            region: config.artifacts.region,
            endpoint: config.artifacts.endpoint,
            prefix: config.artifacts.prefix,
            forcePathStyle: config.artifacts.forcePathStyle,
            credentials: config.artifacts.credentials ? 'explicit' : 'sdk default chain',
            kmsKeyId: config.artifacts.kmsKeyId,
          }
        : { kind: 'embedded', dataDir: config.dataDir },
    artifactDefaults: config.artifactDefaults,
    queue:
      config.queue.kind === 'bullmq'
        ? { kind: 'bullmq', redisUrl: redactUrl(config.queue.redisUrl), prefix: config.queue.prefix }
        : { kind: 'in-process' },
    summarizer:
      config.summarizer.kind === 'anthropic'
        ? { kind: 'anthropic', model: config.summarizer.model, baseUrl: config.summarizer.baseUrl }
        : { kind: 'extractive' },
    debounceMs: config.debounceMs,
    debounceMaxWaitMs: config.debounceMaxWaitMs,
    enqueueTimeoutMs: config.enqueueTimeoutMs,
    queueProbe: config.queueProbe,
    worker: config.worker,
    logLevel: config.logLevel,
  };
}
