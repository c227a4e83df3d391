export { TOKENIZER_FAMILY_METADATA_KEY } from '@compactor/core';
export { buildIngestApp, INGEST_API_VERSION } from './app/build-ingest-app.js';
export { type ApiKeyGrant, type Caller, parseApiKeys, requesterIdOf } from './auth/api-keys.js';
export { type IngestConfig, loadIngestConfig } from './config/ingest-config.js';
export type {
  IngestDependencies,
  IngestLimits,
  IngestStores,
  ManualCompactor,
} from './dependencies.js';
export { type ApiErrorCode, type ErrorBody, errorResponse } from './errors/error-response.js';
export { expectedVersionFromIfMatch, versionTag } from './http/if-match.js';
export { createIngestMetrics, type IngestMetrics } from './metrics/ingest-metrics.js';
export {
  type IngestServer,
  type StartIngestServerOptions,
  startIngestServer,
} from './runtime/start-ingest-server.js';
