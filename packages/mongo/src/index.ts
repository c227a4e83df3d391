export { DUPLICATE_KEY_CODE, type DuplicateKeyInfo, duplicateKeyInfo } from './duplicate-key-error.js';
export {
  documentToEvent,
  type EventDocument,
  eventContentHash,
  eventToDocument,
  storedEventFromInput,
} from './event-documents.js';
export { ensureIndexes, INDEXES, type MongoCollections, openCollections } from './mongo-collections.js';
export type {
  LifecycleEventDocument,
  PlanDocument,
  PlanHeadDocument,
  SummaryDocument,
  ThreadDocument,
} from './mongo-documents.js';
export { mapMongoError } from './mongo-error-mapping.js';
export { MongoEventStore, type MongoEventStoreOptions } from './mongo-event-store.js';
export { MongoLifecycleEventLog } from './mongo-lifecycle-log.js';
export { MongoPlanStore, type MongoPlanStoreOptions } from './mongo-plan-store.js';
export { createMongoStores, type MongoStores, type MongoStoresOptions } from './mongo-stores.js';
export { MongoSummaryCache } from './mongo-summary-cache.js';
