import type { ArtifactStore, EventStore, LifecycleEventLog, PlanStore, SummaryCache } from '@compactor/core';

/** Every store port, whichever adapters the configuration chose. */
export interface RuntimeStores {
  events: EventStore;
  plans: PlanStore;
  summaries: SummaryCache;
  artifacts: ArtifactStore;
  lifecycle: LifecycleEventLog;
}

/** A resource the runtime opened and must close, in reverse order of opening. */
export interface OpenedResource<T> {
  value: T;
  close(): Promise<void>;
}
