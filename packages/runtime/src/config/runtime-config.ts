import type { ArtifactSensitivity } from '@compactor/core';
/** Log levels pino understands; `silent` turns logging off. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where events, plans, summaries and lifecycle events live. */
export type StoreConfig =
  | { kind: 'embedded' }
  | {
      kind: 'mongo';
      uri: string;
      dbName: string;
    }
  | {
      kind: 'postgres';
      /** `DATABASE_URL`: a `postgres://` connection string. */
      url: string;
      /** The schema holding the tables, migrated at start (`COMPACTOR_POSTGRES_SCHEMA`). */
      schema: string;
      /** Connections in this process's pool (`COMPACTOR_POSTGRES_POOL_SIZE`). */
      poolSize: number;
    };

/** Where externalized content lives. */
export type ArtifactsConfig =
  | { kind: 'embedded' }
  | {
      kind: 's3';
      bucket: string;
      region: string;
      /** An S3-compatible endpoint (MinIO, s3rver, ...); none = AWS. */
      endpoint: string | undefined;
      /** Key prefix; none = the store's default (`artifacts`). */
      prefix: string | undefined;
      forcePathStyle: boolean;
      /** Explicit keys; none = the AWS SDK's default credential chain. */
      credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
      /** SSE-KMS key for every object; none = the bucket's default encryption. */
      kmsKeyId: string | undefined;
    };

/** Where compaction checks are queued: in this process, or BullMQ on Redis. */
export type QueueConfig =
  | { kind: 'in-process' }
  | {
      kind: 'bullmq';
      redisUrl: string;
      /** Prefix of the queue's Redis keys; none = the queue's default (`compactor`). */
      prefix: string | undefined;
    };

/** What writes summaries: the extractive summarizer, or Claude with the extractive one as fallback. */
export type SummarizerConfig =
  | { kind: 'extractive' }
  | {
      kind: 'anthropic';
      apiKey: string;
      baseUrl: string | undefined;
      model: string | undefined;
    };

/** What a compaction worker needs beyond the wiring. */
export interface WorkerSettings {
  concurrency: number;
  /** 0 = no sweeper in this process. */
  sweepIntervalMs: number;
  /** How long a worker's lock on a running job lasts (BullMQ); a dead worker's job is recovered after it. */
  lockDurationMs: number;
  /** How often a BullMQ worker looks for jobs whose worker died. */
  stalledIntervalMs: number;
  /** How long a graceful shutdown waits for running checks before requeueing them. */
  shutdownTimeoutMs: number;
}

/** The parsed environment: every choice the apps make about their dependencies, read once. */
export interface RuntimeConfig {
  store: StoreConfig;
  /** The local data directory (embedded store and embedded artifacts). */
  dataDir: string;
  /**
   * How the data directory is opened: `exclusive` (one process) or `shared` (an ingest and its
   * workers on one host). Unset = `exclusive`.
   */
  embeddedSharing?: 'exclusive' | 'shared';
  /** Embedded stores: the data directory lease in ms (a dead holder is taken over after it). Unset = 10,000. */
  embeddedLeaseMs?: number;
  /** Embedded stores: bytes of per-thread state each store keeps in memory. Unset = 32 MiB. */
  embeddedCacheBytes?: number;
  artifacts: ArtifactsConfig;
  /**
   * What every externalized artifact gets unless its tool's policy is stricter (ADR-0059): the
   * sensitivity is a floor, the TTL a maximum (the shorter of it and the tool's wins).
   */
  artifactDefaults: { sensitivity: ArtifactSensitivity; ttlSeconds?: number };
  queue: QueueConfig;
  summarizer: SummarizerConfig;
  /**
   * The deployment's switch for automatic compaction (`COMPACTOR_AUTO_COMPACT`, default on): off, no
   * thread is compacted by its trigger, whatever its policy says; `/compact` still runs (ADR-0183).
   */
  autoCompact: boolean;
  /** Debounce of automatic compaction checks. */
  debounceMs: number;
  /** A thread that keeps receiving events is still checked at least this often (debounce maximum wait). */
  debounceMaxWaitMs: number;
  /** How long an enqueue may take before it counts as failed (the thread is then marked pending). */
  enqueueTimeoutMs: number;
  /**
   * After a failed enqueue the producer's circuit opens (enqueues fail at once) and Redis is probed
   * after `initialDelayMs`, doubling up to `maxDelayMs`, until it answers (ADR-0055).
   */
  queueProbe: { initialDelayMs: number; maxDelayMs: number };
  worker: WorkerSettings;
  logLevel: LogLevel;
}
