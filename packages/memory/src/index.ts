export { createMemoryStores, type MemoryStores } from './create-memory-stores.js';
export { MemoryEventStore } from './memory-event-store.js';
export { MemoryLifecycleLog } from './memory-lifecycle-log.js';
export { MemoryPlanStore } from './memory-plan-store.js';
export { MemorySummaryCache } from './memory-summary-cache.js';
