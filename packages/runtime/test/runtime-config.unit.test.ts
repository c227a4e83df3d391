import { CompactorError, type ValidationError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import {
  describeRuntimeConfig,
  loadRuntimeConfig,
  RUNTIME_ENVIRONMENT_VARIABLES,
  type RuntimeConfig,
} from '../src/index.js';

function configurationError(environment: Record<string, string>): ValidationError {
  try {
    loadRuntimeConfig(environment);
  } catch (error) {
    if (CompactorError.hasCode(error, 'validation')) return error as ValidationError;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('loadRuntimeConfig', () => {
  it('defaults to the embedded, offline, single-process setup', () => {
    const expected: RuntimeConfig = {
      store: { kind: 'embedded' },
      dataDir: './.compactor',
      embeddedSharing: 'exclusive',
      embeddedLeaseMs: 10_000,
      embeddedCacheBytes: 32 * 1024 * 1024,
      artifacts: { kind: 'embedded' },
      artifactDefaults: { sensitivity: 'internal' },
      queue: { kind: 'in-process' },
      summarizer: { kind: 'extractive' },
      autoCompact: true,
      debounceMs: 2000,
      debounceMaxWaitMs: 10_000,
      enqueueTimeoutMs: 2000,
      queueProbe: { initialDelayMs: 500, maxDelayMs: 30_000 },
      worker: {
        concurrency: 4,
        sweepIntervalMs: 30_000,
        lockDurationMs: 30_000,
        stalledIntervalMs: 15_000,
        shutdownTimeoutMs: 30_000,
      },
      logLevel: 'info',
    };
    expect(loadRuntimeConfig({})).toEqual(expected);
  });

  it('switches automatic compaction off for the deployment with COMPACTOR_AUTO_COMPACT (ADR-0183)', () => {
    expect(loadRuntimeConfig({ COMPACTOR_AUTO_COMPACT: 'false' }).autoCompact).toBe(false);
    expect(loadRuntimeConfig({ COMPACTOR_AUTO_COMPACT: 'on' }).autoCompact).toBe(true);
    expect(loadRuntimeConfig({}).autoCompact).toBe(true);
    expect(configurationError({ COMPACTOR_AUTO_COMPACT: 'maybe' }).issues[0]?.path).toBe(
      'COMPACTOR_AUTO_COMPACT',
    );
  });

  it('opens the embedded data directory shared when COMPACTOR_EMBEDDED_SHARING=shared', () => {
    expect(loadRuntimeConfig({ COMPACTOR_EMBEDDED_SHARING: 'shared' }).embeddedSharing).toBe('shared');
    expect(loadRuntimeConfig({ COMPACTOR_EMBEDDED_SHARING: 'exclusive' }).embeddedSharing).toBe('exclusive');
  });

  it('reads the embedded lease and memory budget, refusing values below their minimum', () => {
    const config = loadRuntimeConfig({
      COMPACTOR_EMBEDDED_LEASE_MS: '2500',
      COMPACTOR_EMBEDDED_CACHE_BYTES: '1048576',
    });
    expect(config.embeddedLeaseMs).toBe(2_500);
    expect(config.embeddedCacheBytes).toBe(1_048_576);
    expect(() => loadRuntimeConfig({ COMPACTOR_EMBEDDED_LEASE_MS: '10' })).toThrow();
    expect(() => loadRuntimeConfig({ COMPACTOR_EMBEDDED_CACHE_BYTES: '1000' })).toThrow();
  });

  it('treats empty values as unset, as .env files write them', () => {
    expect(
      loadRuntimeConfig({
        COMPACTOR_STORE: '',
        COMPACTOR_WORKER_CONCURRENCY: ' ',
        REDIS_URL: '',
        LOG_LEVEL: '',
      }),
    ).toEqual(loadRuntimeConfig({}));
  });

  it('maps the production setup to its structured form', () => {
    const config = loadRuntimeConfig({
      COMPACTOR_STORE: 'mongo',
      MONGODB_URI: 'mongodb://db1,db2/?replicaSet=rs0',
      MONGODB_DB: 'compactor_prod',
      COMPACTOR_ARTIFACTS: 's3',
      S3_BUCKET: 'artifacts-bucket',
      S3_REGION: 'eu-west-1',
      S3_PREFIX: 'compactor',
      AWS_ACCESS_KEY_ID: 'AKIA-TEST',
      AWS_SECRET_ACCESS_KEY: 'secret-test',
      COMPACTOR_KMS_KEY_ID: 'alias/compactor',
      COMPACTOR_QUEUE: 'bullmq',
      REDIS_URL: 'redis://:pw@redis:6379',
      COMPACTOR_QUEUE_PREFIX: '{compactor}',
      ANTHROPIC_API_KEY: 'sk-test',
      COMPACTOR_SUMMARY_MODEL: 'claude-haiku-4-5',
      COMPACTOR_WORKER_CONCURRENCY: '16',
      COMPACTOR_DEBOUNCE_MS: '0',
      COMPACTOR_SWEEP_INTERVAL_MS: '0',
      COMPACTOR_LOCK_DURATION_MS: '1000',
      COMPACTOR_STALLED_INTERVAL_MS: '500',
      LOG_LEVEL: 'debug',
    });
    expect(config.store).toEqual({
      kind: 'mongo',
      uri: 'mongodb://db1,db2/?replicaSet=rs0',
      dbName: 'compactor_prod',
    });
    expect(config.artifacts).toEqual({
      kind: 's3',
      bucket: 'artifacts-bucket',
      region: 'eu-west-1',
      endpoint: undefined,
      prefix: 'compactor',
      forcePathStyle: false,
      credentials: { accessKeyId: 'AKIA-TEST', secretAccessKey: 'secret-test' },
      kmsKeyId: 'alias/compactor',
    });
    expect(config.queue).toEqual({
      kind: 'bullmq',
      redisUrl: 'redis://:pw@redis:6379',
      prefix: '{compactor}',
    });
    expect(config.summarizer).toEqual({
      kind: 'anthropic',
      apiKey: 'sk-test',
      baseUrl: undefined,
      model: 'claude-haiku-4-5',
    });
    expect(config.debounceMs).toBe(0);
    expect(config.worker).toMatchObject({
      concurrency: 16,
      sweepIntervalMs: 0,
      lockDurationMs: 1000,
      stalledIntervalMs: 500,
    });
    expect(config.logLevel).toBe('debug');
  });

  it('maps the PostgreSQL store with its schema and pool size, defaulting both', () => {
    const url = 'postgres://compactor:pg-password@db.internal:5432/compactor';
    expect(loadRuntimeConfig({ COMPACTOR_STORE: 'postgres', DATABASE_URL: url }).store).toEqual({
      kind: 'postgres',
      url,
      schema: 'compactor',
      poolSize: 10,
    });
    const tuned = loadRuntimeConfig({
      COMPACTOR_STORE: 'postgres',
      DATABASE_URL: url,
      COMPACTOR_POSTGRES_SCHEMA: 'compactor_eu',
      COMPACTOR_POSTGRES_POOL_SIZE: '25',
    });
    expect(tuned.store).toEqual({ kind: 'postgres', url, schema: 'compactor_eu', poolSize: 25 });
    const described = JSON.stringify(describeRuntimeConfig(tuned));
    expect(described).not.toContain('pg-password');
    expect(described).toContain('db.internal:5432');
    expect(described).toContain('"schema":"compactor_eu"');
  });

  it('uses path-style requests for an S3-compatible endpoint unless told otherwise', () => {
    const base = { COMPACTOR_ARTIFACTS: 's3', S3_BUCKET: 'bucket', S3_ENDPOINT: 'http://127.0.0.1:9000' };
    const withEndpoint = loadRuntimeConfig(base).artifacts;
    expect(withEndpoint.kind === 's3' && withEndpoint.forcePathStyle).toBe(true);
    const overridden = loadRuntimeConfig({ ...base, S3_FORCE_PATH_STYLE: 'false' }).artifacts;
    expect(overridden.kind === 's3' && overridden.forcePathStyle).toBe(false);
  });

  it.each([
    [{ COMPACTOR_STORE: 'mongo' }, 'MONGODB_URI', 'MONGODB_URI is required when COMPACTOR_STORE=mongo'],
    [
      { COMPACTOR_STORE: 'postgres' },
      'DATABASE_URL',
      'DATABASE_URL is required when COMPACTOR_STORE=postgres',
    ],
    [{ COMPACTOR_ARTIFACTS: 's3' }, 'S3_BUCKET', 'S3_BUCKET is required when COMPACTOR_ARTIFACTS=s3'],
    [{ COMPACTOR_QUEUE: 'bullmq' }, 'REDIS_URL', 'REDIS_URL is required when COMPACTOR_QUEUE=bullmq'],
    [
      { AWS_ACCESS_KEY_ID: 'AKIA-TEST' },
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SECRET_ACCESS_KEY is required when AWS_ACCESS_KEY_ID is set',
    ],
    [
      { AWS_SECRET_ACCESS_KEY: 'secret' },
      'AWS_ACCESS_KEY_ID',
      'AWS_ACCESS_KEY_ID is required when AWS_SECRET_ACCESS_KEY is set',
    ],
    [
      { COMPACTOR_LOCK_DURATION_MS: '1000', COMPACTOR_STALLED_INTERVAL_MS: '5000' },
      'COMPACTOR_LOCK_DURATION_MS',
      'COMPACTOR_LOCK_DURATION_MS must be at least COMPACTOR_STALLED_INTERVAL_MS',
    ],
  ])('rejects %j, naming %s', (environment, variable, message) => {
    const error = configurationError(environment);
    expect(error.issues.map((issue) => issue.path)).toEqual([variable]);
    expect(error.message).toContain(message);
    expect(error.message.startsWith('invalid runtime configuration: ')).toBe(true);
  });

  it.each([
    ['COMPACTOR_STORE', 'mysql', 'must be one of "embedded", "mongo", "postgres"'],
    ['DATABASE_URL', 'mysql://db/compactor', 'must be a URL starting with postgres:// or postgresql://'],
    ['COMPACTOR_POSTGRES_SCHEMA', 'Compactor-Prod', 'must be lower-case letters, digits and _'],
    ['COMPACTOR_POSTGRES_POOL_SIZE', '0', 'must be at least 1'],
    ['COMPACTOR_QUEUE', 'kafka', 'must be one of "in-process", "bullmq"'],
    ['COMPACTOR_EMBEDDED_SHARING', 'both', 'must be one of "exclusive", "shared"'],
    ['COMPACTOR_WORKER_CONCURRENCY', 'four', 'must be a whole number'],
    ['COMPACTOR_WORKER_CONCURRENCY', '0', 'must be at least 1'],
    ['COMPACTOR_DEBOUNCE_MS', '-5', 'must be a whole number'],
    ['REDIS_URL', 'http://127.0.0.1:6379', 'must be a URL starting with redis:// or rediss://'],
    ['MONGODB_URI', 'not a url', 'must be a URL starting with mongodb:// or mongodb+srv://'],
    ['S3_FORCE_PATH_STYLE', 'maybe', 'must be one of true, 1, yes, on, false, 0, no, off'],
    ['LOG_LEVEL', 'verbose', 'must be one of'],
  ])('rejects %s=%s with a message naming it', (variable, value, message) => {
    const error = configurationError({ [variable]: value });
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]!.path).toBe(variable);
    expect(error.issues[0]!.message).toContain(message);
    expect(error.message).toContain(`${variable} ${message}`);
  });

  it('reports every problem at once', () => {
    const error = configurationError({
      COMPACTOR_STORE: 'mongo',
      COMPACTOR_QUEUE: 'bullmq',
      COMPACTOR_WORKER_CONCURRENCY: 'many',
    });
    expect(error.issues.map((issue) => issue.path).sort()).toEqual([
      'COMPACTOR_WORKER_CONCURRENCY',
      'MONGODB_URI',
      'REDIS_URL',
    ]);
    for (const variable of ['COMPACTOR_WORKER_CONCURRENCY', 'MONGODB_URI', 'REDIS_URL']) {
      expect(error.message).toContain(variable);
    }
  });

  it('lists every variable it reads', () => {
    for (const variable of [
      'COMPACTOR_STORE',
      'MONGODB_URI',
      'DATABASE_URL',
      'COMPACTOR_POSTGRES_SCHEMA',
      'S3_BUCKET',
      'REDIS_URL',
      'ANTHROPIC_API_KEY',
      'LOG_LEVEL',
    ]) {
      expect(RUNTIME_ENVIRONMENT_VARIABLES).toContain(variable);
    }
  });
});

describe('describeRuntimeConfig', () => {
  it('shows modes and locations without secrets', () => {
    const config = loadRuntimeConfig({
      COMPACTOR_STORE: 'mongo',
      MONGODB_URI: 'mongodb://admin:mongo-password@db1/?replicaSet=rs0',
      COMPACTOR_ARTIFACTS: 's3',
      S3_BUCKET: 'bucket',
      AWS_ACCESS_KEY_ID: 'AKIA-TEST',
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
      COMPACTOR_QUEUE: 'bullmq',
      REDIS_URL: 'redis://:redis-password@redis:6379',
      ANTHROPIC_API_KEY: 'sk-ant-secret',
    });
    const described = JSON.stringify(describeRuntimeConfig(config));
    for (const secret of [
      'mongo-password',
      'aws-secret-value',
      'AKIA-TEST',
      'redis-password',
      'sk-ant-secret',
    ]) {
      expect(described).not.toContain(secret);
    }
    expect(described).toContain('db1');
    expect(described).toContain('redis:6379');
    expect(described).toContain('"bucket":"bucket"');
  });
});
