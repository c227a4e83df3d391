import { type Clock, systemClock } from '@compactor/core';
import { MemoryEventStore } from './memory-event-store.js';
import { MemoryLifecycleLog } from './memory-lifecycle-log.js';
import { MemoryPlanStore } from './memory-plan-store.js';
import { MemorySummaryCache } from './memory-summary-cache.js';

export interface MemoryStores {
  events: MemoryEventStore;
  plans: MemoryPlanStore;
  lifecycle: MemoryLifecycleLog;
  summaries: MemorySummaryCache;
}

/**
 * Every record port in memory: no disk, no Redis. The same shape `createCompactor({ stores })`
 * takes from the embedded or production stores; there is no artifact store, so nothing is
 * externalized (the other rungs still compact).
 */
export function createMemoryStores(options: { clock?: Clock } = {}): MemoryStores {
  const clock = options.clock ?? systemClock;
  return {
    events: new MemoryEventStore(clock),
    plans: new MemoryPlanStore(clock),
    lifecycle: new MemoryLifecycleLog(),
    summaries: new MemorySummaryCache(),
  };
}
