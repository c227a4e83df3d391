export { EmbeddedArtifactStore } from './artifact-store/embedded-artifact-store.js';
export {
  createEmbeddedStores,
  EMBEDDED_FORMAT_VERSION,
  type EmbeddedStores,
} from './create-embedded-stores.js';
export {
  DEFAULT_PAGE_EVENTS,
  EmbeddedEventStore,
  MAX_PAGE_BYTES,
} from './event-store/embedded-event-store.js';
export { EmbeddedLifecycleEventLog } from './lifecycle-log/embedded-lifecycle-log.js';
export { DataLayout } from './paths/data-layout.js';
export { encodePathSegment } from './paths/path-segment.js';
export { EmbeddedPlanStore } from './plan-store/embedded-plan-store.js';
export {
  DEFAULT_CACHE_BYTES,
  DEFAULT_DATA_DIR,
  DEFAULT_LEASE_MS,
  DEFAULT_LOCK_STALE_MS,
  EMBEDDED_SHARING_MODES,
  type EmbeddedSharing,
  type EmbeddedStoreOptions,
} from './store-options.js';
export { EmbeddedSummaryCache } from './summary-cache/embedded-summary-cache.js';
