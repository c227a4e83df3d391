import { z } from 'zod';
import {
  choice,
  optionalBoolean,
  optionalText,
  optionalUrl,
  optionalWholeNumber,
  postgresSchemaName,
  textWithDefault,
  wholeNumber,
} from './environment-values.js';
import { LOG_LEVELS, type RuntimeConfig } from './runtime-config.js';

/**
 * Every environment variable the runtime reads, by name, with its default. Issue paths are the
 * variable names, so an error says which variable to fix.
 */
export const runtimeEnvironmentSchema = z.object({
  COMPACTOR_STORE: choice(['embedded', 'mongo', 'postgres'], 'embedded'),
  COMPACTOR_DATA_DIR: textWithDefault('./.compactor'),
  COMPACTOR_EMBEDDED_SHARING: choice(['exclusive', 'shared'], 'exclusive'),
  COMPACTOR_EMBEDDED_LEASE_MS: wholeNumber(10_000, 1_000),
  COMPACTOR_EMBEDDED_CACHE_BYTES: wholeNumber(32 * 1024 * 1024, 64 * 1024),
  MONGODB_URI: optionalUrl(['mongodb:', 'mongodb+srv:']),
  MONGODB_DB: textWithDefault('compactor'),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  COMPACTOR_POSTGRES_SCHEMA: postgresSchemaName('compactor'),
  COMPACTOR_POSTGRES_POOL_SIZE: wholeNumber(10, 1),

  COMPACTOR_ARTIFACTS: choice(['embedded', 's3'], 'embedded'),
  S3_BUCKET: optionalText(),
  S3_ENDPOINT: optionalUrl(['http:', 'https:']),
  S3_REGION: textWithDefault('us-east-1'),
  S3_PREFIX: optionalText(),
  S3_FORCE_PATH_STYLE: optionalBoolean(),
  AWS_ACCESS_KEY_ID: optionalText(),
  AWS_SECRET_ACCESS_KEY: optionalText(),
  AWS_SESSION_TOKEN: optionalText(),
  COMPACTOR_KMS_KEY_ID: optionalText(),
  COMPACTOR_ARTIFACT_SENSITIVITY: choice(['public', 'internal', 'confidential', 'restricted'], 'internal'),
  COMPACTOR_ARTIFACT_TTL_SECONDS: optionalWholeNumber(1),

  COMPACTOR_QUEUE: choice(['in-process', 'bullmq'], 'in-process'),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  COMPACTOR_QUEUE_PREFIX: optionalText(),
  COMPACTOR_ENQUEUE_TIMEOUT_MS: wholeNumber(2_000, 1),
  COMPACTOR_QUEUE_PROBE_INITIAL_MS: wholeNumber(500, 1),
  COMPACTOR_QUEUE_PROBE_MAX_MS: wholeNumber(30_000, 1),

  ANTHROPIC_API_KEY: optionalText(),
  ANTHROPIC_BASE_URL: optionalUrl(['http:', 'https:']),
  COMPACTOR_SUMMARY_MODEL: optionalText(),
  COMPACTOR_AUTO_COMPACT: optionalBoolean(),

  COMPACTOR_WORKER_CONCURRENCY: wholeNumber(4, 1),
  COMPACTOR_DEBOUNCE_MS: wholeNumber(2_000, 0),
  COMPACTOR_DEBOUNCE_MAX_WAIT_MS: wholeNumber(10_000, 1),
  COMPACTOR_SWEEP_INTERVAL_MS: wholeNumber(30_000, 0),
  COMPACTOR_LOCK_DURATION_MS: wholeNumber(30_000, 100),
  COMPACTOR_STALLED_INTERVAL_MS: wholeNumber(15_000, 100),
  COMPACTOR_SHUTDOWN_TIMEOUT_MS: wholeNumber(30_000, 0),

  LOG_LEVEL: choice(LOG_LEVELS, 'info'),
});

/** The runtime's environment variables, parsed and defaulted. */
export type RuntimeEnvironment = z.infer<typeof runtimeEnvironmentSchema>;

/** The names of every variable the runtime reads (for documentation and `.env.example` checks). */
export const RUNTIME_ENVIRONMENT_VARIABLES = Object.keys(runtimeEnvironmentSchema.shape) as Array<
  keyof RuntimeEnvironment
>;

type IssueSink = (variable: keyof RuntimeEnvironment, message: string) => void;

/** Rules between variables: a mode needs the variables that locate its server. */
function checkCombinations(environment: RuntimeEnvironment, report: IssueSink): void {
  if (environment.COMPACTOR_STORE === 'mongo' && !environment.MONGODB_URI) {
    report(
      'MONGODB_URI',
      'is required when COMPACTOR_STORE=mongo (e.g. mongodb://127.0.0.1:27017/?replicaSet=rs0)',
    );
  }
  if (environment.COMPACTOR_STORE === 'postgres' && !environment.DATABASE_URL) {
    report(
      'DATABASE_URL',
      'is required when COMPACTOR_STORE=postgres (e.g. postgres://compactor@127.0.0.1:5432/compactor)',
    );
  }
  if (environment.COMPACTOR_ARTIFACTS === 's3' && !environment.S3_BUCKET) {
    report('S3_BUCKET', 'is required when COMPACTOR_ARTIFACTS=s3');
  }
  if (environment.COMPACTOR_QUEUE === 'bullmq' && !environment.REDIS_URL) {
    report('REDIS_URL', 'is required when COMPACTOR_QUEUE=bullmq (e.g. redis://127.0.0.1:6379)');
  }
  if (Boolean(environment.AWS_ACCESS_KEY_ID) !== Boolean(environment.AWS_SECRET_ACCESS_KEY)) {
    const [missing, present] = environment.AWS_ACCESS_KEY_ID
      ? (['AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID'] as const)
      : (['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const);
    report(missing, `is required when ${present} is set (leave both unset for the AWS SDK's default chain)`);
  }
  if (environment.COMPACTOR_QUEUE_PROBE_MAX_MS < environment.COMPACTOR_QUEUE_PROBE_INITIAL_MS) {
    report('COMPACTOR_QUEUE_PROBE_MAX_MS', 'must be at least COMPACTOR_QUEUE_PROBE_INITIAL_MS');
  }
  if (environment.COMPACTOR_LOCK_DURATION_MS < environment.COMPACTOR_STALLED_INTERVAL_MS) {
    report(
      'COMPACTOR_LOCK_DURATION_MS',
      'must be at least COMPACTOR_STALLED_INTERVAL_MS, or running jobs would be taken for stalled ones',
    );
  }
}

function storeConfig(env: RuntimeEnvironment): RuntimeConfig['store'] {
  if (env.COMPACTOR_STORE === 'mongo')
    return { kind: 'mongo', uri: env.MONGODB_URI!, dbName: env.MONGODB_DB };
  if (env.COMPACTOR_STORE === 'postgres') {
    return {
      kind: 'postgres',
      url: env.DATABASE_URL!,
      schema: env.COMPACTOR_POSTGRES_SCHEMA,
      poolSize: env.COMPACTOR_POSTGRES_POOL_SIZE,
    };
  }
  return { kind: 'embedded' };
}

function toRuntimeConfig(environment: RuntimeEnvironment): RuntimeConfig {
  const env = environment;
  return {
    store: storeConfig(env),
    dataDir: env.COMPACTOR_DATA_DIR,
    embeddedSharing: env.COMPACTOR_EMBEDDED_SHARING,
    embeddedLeaseMs: env.COMPACTOR_EMBEDDED_LEASE_MS,
    embeddedCacheBytes: env.COMPACTOR_EMBEDDED_CACHE_BYTES,
    artifacts:
      env.COMPACTOR_ARTIFACTS === 's3'
        ? {
            kind: 's3',
            bucket: env.S3_BUCKET!,
            region: env.S3_REGION,
            endpoint: env.S3_ENDPOINT,
            prefix: env.S3_PREFIX,
            // S3-compatible stores (MinIO, s3rver) serve buckets by path, not by host name.
            forcePathStyle: env.S3_FORCE_PATH_STYLE ?? env.S3_ENDPOINT !== undefined,
            credentials:
              env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
                ? {
                    accessKeyId: env.AWS_ACCESS_KEY_ID,
                    secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
                    ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
                  }
                : undefined,
            kmsKeyId: env.COMPACTOR_KMS_KEY_ID,
          }
        : { kind: 'embedded' },
    artifactDefaults: {
      sensitivity: env.COMPACTOR_ARTIFACT_SENSITIVITY,
      ...(env.COMPACTOR_ARTIFACT_TTL_SECONDS === undefined
        ? {}
        : { ttlSeconds: env.COMPACTOR_ARTIFACT_TTL_SECONDS }),
    },
    queue:
      env.COMPACTOR_QUEUE === 'bullmq'
        ? { kind: 'bullmq', redisUrl: env.REDIS_URL!, prefix: env.COMPACTOR_QUEUE_PREFIX }
        : { kind: 'in-process' },
    summarizer: env.ANTHROPIC_API_KEY
      ? {
          kind: 'anthropic',
          apiKey: env.ANTHROPIC_API_KEY,
          baseUrl: env.ANTHROPIC_BASE_URL,
          model: env.COMPACTOR_SUMMARY_MODEL,
        }
      : { kind: 'extractive' },
    autoCompact: env.COMPACTOR_AUTO_COMPACT ?? true,
    debounceMs: env.COMPACTOR_DEBOUNCE_MS,
    debounceMaxWaitMs: env.COMPACTOR_DEBOUNCE_MAX_WAIT_MS,
    enqueueTimeoutMs: env.COMPACTOR_ENQUEUE_TIMEOUT_MS,
    queueProbe: {
      initialDelayMs: env.COMPACTOR_QUEUE_PROBE_INITIAL_MS,
      maxDelayMs: env.COMPACTOR_QUEUE_PROBE_MAX_MS,
    },
    worker: {
      concurrency: env.COMPACTOR_WORKER_CONCURRENCY,
      sweepIntervalMs: env.COMPACTOR_SWEEP_INTERVAL_MS,
      lockDurationMs: env.COMPACTOR_LOCK_DURATION_MS,
      stalledIntervalMs: env.COMPACTOR_STALLED_INTERVAL_MS,
      shutdownTimeoutMs: env.COMPACTOR_SHUTDOWN_TIMEOUT_MS,
    },
    logLevel: env.LOG_LEVEL,
  };
}

/**
 * The environment (`process.env` or any record of strings) to a `RuntimeConfig`: each variable
 * parsed on its own, then the rules between them (mongo needs MONGODB_URI, postgres needs
 * DATABASE_URL, s3 needs S3_BUCKET,
 * bullmq needs REDIS_URL, ...), then the structured config.
 */
export const runtimeConfigSchema = runtimeEnvironmentSchema
  .superRefine((environment, context) =>
    checkCombinations(environment, (variable, message) =>
      context.addIssue({ code: 'custom', path: [variable], message }),
    ),
  )
  .transform(toRuntimeConfig);
