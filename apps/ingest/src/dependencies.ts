import type {
  ArtifactSensitivity,
  ArtifactStore,
  Clock,
  EventStore,
  JobQueue,
  LifecycleEventLog,
  PlanStore,
} from '@compactor/core';
import type { CheckResult } from '@compactor/engine';
import type { Logger as PinoLogger } from 'pino';
import type { Registry } from 'prom-client';
import type { ApiKeyGrant } from './auth/api-keys.js';

/** The part of the compaction engine the ingest calls (manual compaction). */
export interface ManualCompactor {
  compactThread(
    tenantId: string,
    threadId: string,
    manual?: { instructions?: string; force?: boolean },
  ): Promise<CheckResult>;
}

/** Size limits of a request. */
export interface IngestLimits {
  /** Largest request body accepted, in bytes (413 above). */
  maxBodyBytes: number;
  /** Most events one append may carry (413 above). */
  maxEventsPerBatch: number;
}

/** Deadlines that keep a slow or idle client from holding a connection (ADR-0047). */
export interface IngestTimeouts {
  /** The whole request (headers and body) must arrive within this. */
  requestMs: number;
  /** The request headers must arrive within this. */
  headersMs: number;
  /** A socket with no traffic at all is closed after this; longer than the slowest manual compaction (it answers only when done). */
  idleMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
  /** How often Node checks the request and header deadlines (their precision). */
  checkIntervalMs: number;
  /** A request slower than this is logged at info level. */
  slowRequestMs: number;
}

/** 30 s per request, 10 s for headers, 2 min idle, 5 s keep-alive, checked every second; slow past 1 s. */
export const defaultIngestTimeouts: IngestTimeouts = {
  requestMs: 30_000,
  headersMs: 10_000,
  idleMs: 120_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
  slowRequestMs: 1_000,
};

/** The stores the routes read and write. */
export interface IngestStores {
  events: EventStore;
  plans: PlanStore;
  artifacts: ArtifactStore;
  lifecycle: LifecycleEventLog;
}

/** Everything the ingest app is built over. */
export interface IngestDependencies {
  stores: IngestStores;
  queue: JobQueue;
  engine: ManualCompactor;
  /**
   * API key → tenant. A value may be a bare tenant id or a grant carrying permissions
   * (see `parseApiKeys` for the `COMPACTOR_API_KEYS` syntax).
   */
  apiKeys: ReadonlyMap<string, string | ApiKeyGrant>;
  limits: IngestLimits;
  /** Deadlines; missing fields keep their default. @defaultValue {@link defaultIngestTimeouts} */
  timeouts?: Partial<IngestTimeouts>;
  /**
   * A write that proves the stores' storage takes writes (the data directory of the embedded
   * stores); `/readyz` runs it and reports not ready while it fails (disk full, read-only).
   */
  storageWriteProbe?: () => Promise<void>;
  metrics: Registry;
  logger: PinoLogger;
  clock: Clock;
  /**
   * Where the built inspector page is (served at /ui/); default the inspector package's `dist`;
   * null serves no page.
   */
  inspectorDirectory?: string | null;
  /** Debounce of the compaction check enqueued after an append. @defaultValue 1,000 */
  compactionDebounceMs?: number;
  /**
   * The deployment's artifact sensitivity (`COMPACTOR_ARTIFACT_SENSITIVITY`): every tool's output
   * is at least this sensitive (ADR-0059).
   * @defaultValue `'internal'`
   */
  artifactSensitivityFloor?: ArtifactSensitivity;
}

export const defaultCompactionDebounceMs = 1_000;
