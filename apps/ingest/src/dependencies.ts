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

export interface IngestLimits {
  /** Largest request body accepted, in bytes (413 above). */
  maxBodyBytes: number;
  /** Most events one append may carry (413 above). */
  maxEventsPerBatch: number;
}

export interface IngestStores {
  events: EventStore;
  plans: PlanStore;
  artifacts: ArtifactStore;
  lifecycle: LifecycleEventLog;
}

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
  metrics: Registry;
  logger: PinoLogger;
  clock: Clock;
  /** Debounce of the compaction check enqueued after an append. Default 1000 ms. */
  compactionDebounceMs?: number;
  /**
   * The deployment's artifact sensitivity (`COMPACTOR_ARTIFACT_SENSITIVITY`): every tool's output
   * is at least this sensitive. Default `internal` (ADR-0059).
   */
  artifactSensitivityFloor?: ArtifactSensitivity;
}

export const defaultCompactionDebounceMs = 1_000;
