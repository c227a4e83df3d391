export { type ArtifactStoreUnderTest, type ManualClock, testArtifactStore } from './artifact-store.js';
export { expectCompactorError, type StoreUnderTest, uniqueId } from './contract-helpers.js';
export { testEventStore } from './event-store.js';
export { testLifecycleEventLog } from './lifecycle-log.js';
export { testPlanStore } from './plan-store.js';
export { testSummaryCache } from './summary-cache.js';
