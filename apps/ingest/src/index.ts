export { TOKENIZER_FAMILY_METADATA_KEY } from '@compactor/core';
// The servers' heap setting is the worker's (the ingest runs it in process); `compactor serve` applies it too.
export {
  applyHeapCompaction,
  type HeapCompaction,
  type HeapCompactionSetting,
  heapCompactionSettingFrom,
} from '@compactor/worker';
export { buildIngestApp, INGEST_API_VERSION } from './app/build-ingest-app.js';
export { type ApiKeyGrant, type Caller, parseApiKeys, requesterIdOf } from './auth/api-keys.js';
export { type IngestConfig, loadIngestConfig } from './config/ingest-config.js';
export {
  defaultIngestTimeouts,
  type IngestDependencies,
  type IngestLimits,
  type IngestStores,
  type IngestTimeouts,
  type ManualCompactor,
} from './dependencies.js';
export { type ApiErrorCode, type ErrorBody, errorResponse } from './errors/error-response.js';
export { expectedVersionFromIfMatch, versionTag } from './http/if-match.js';
export { MAX_JSON_DEPTH } from './http/json-depth.js';
export { createIngestMetrics, type IngestMetrics } from './metrics/ingest-metrics.js';
export { directoryWriteProbe } from './runtime/directory-write-probe.js';
export {
  type IngestServer,
  type StartIngestServerOptions,
  startIngestServer,
} from './runtime/start-ingest-server.js';
export {
  CLIENT_ID_MAX_LENGTH,
  SYSTEM_PROMPT_MAX_LENGTH,
  THREAD_ID_MAX_LENGTH,
} from './schemas/request-schemas.js';
