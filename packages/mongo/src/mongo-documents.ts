import type { CachedSummary, CompactionPlan, LifecycleEvent, ThreadMetadata } from '@compactor/core';

/** Per-thread metadata: the version compared on append, counts and totals kept with each batch. */
export type ThreadDocument = ThreadMetadata;

/** One committed plan version; every version is kept. */
export interface PlanDocument {
  tenantId: string;
  threadId: string;
  version: number;
  basedOnSeq: number;
  createdAt: string;
  revertedFrom?: number;
  plan: CompactionPlan;
}

/** The current plan version of a thread: the compare-and-set target of a commit. */
export interface PlanHeadDocument {
  tenantId: string;
  threadId: string;
  version: number;
  updatedAt: string;
}

/** A cached summary, one per tenant and cache key. */
export interface SummaryDocument extends CachedSummary {
  tenantId: string;
  /** `summaryCacheKeyToString(key)`: every part of the key that changes a summary. */
  key: string;
}

/** Lifecycle events carry a per-thread sequence so they list in append order across processes. */
export interface LifecycleEventDocument extends LifecycleEvent {
  seq: number;
}

export interface LifecycleSequenceDocument {
  tenantId: string;
  threadId: string;
  seq: number;
}

export function threadDocumentToMetadata(document: ThreadDocument): ThreadMetadata {
  return {
    tenantId: document.tenantId,
    threadId: document.threadId,
    model: document.model,
    contextWindow: document.contextWindow,
    version: document.version,
    eventCount: document.eventCount,
    messageCount: document.messageCount,
    messageTokens: document.messageTokens,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    compactionPending: document.compactionPending,
  };
}
