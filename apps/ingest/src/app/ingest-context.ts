import type { Logger } from '@compactor/core';
import { createRenderCache, type RenderCache } from '@compactor/render';
import type { EnqueueCheckContext } from '../compaction/enqueue-check.js';
import { defaultCompactionDebounceMs, type IngestDependencies } from '../dependencies.js';
import { createIngestMetrics, type IngestMetrics } from '../metrics/ingest-metrics.js';
import { createThreadOrigins, type ThreadOrigins } from '../threads/thread-origin.js';
import { createThreadPolicies, type ThreadPolicies } from '../threads/thread-policies.js';
import { createThreadTokenizers, type ThreadTokenizers } from '../threads/thread-tokenizers.js';

/** What every route handler shares. */
export interface IngestContext {
  dependencies: IngestDependencies;
  logger: Logger;
  metrics: IngestMetrics;
  origins: ThreadOrigins;
  /** Effective policies: created + policy.updated patches (ADR-0092). */
  policies: ThreadPolicies;
  tokenizers: ThreadTokenizers;
  enqueue: EnqueueCheckContext;
  /**
   * Render memo per tenant: the render cache is keyed by thread id alone, so one cache shared by
   * tenants could serve one tenant's rendered message to another with the same ids.
   */
  renderCacheFor(tenantId: string): RenderCache;
}

export function createIngestContext(dependencies: IngestDependencies): IngestContext {
  const metrics = createIngestMetrics(dependencies.metrics);
  const logger = dependencies.logger;
  const renderCaches = new Map<string, RenderCache>();
  const origins = createThreadOrigins(dependencies.stores.events);
  return {
    dependencies,
    logger,
    metrics,
    origins,
    policies: createThreadPolicies(dependencies.stores.events, origins),
    tokenizers: createThreadTokenizers(),
    enqueue: {
      events: dependencies.stores.events,
      queue: dependencies.queue,
      logger,
      metrics,
      debounceMs: dependencies.compactionDebounceMs ?? defaultCompactionDebounceMs,
    },
    renderCacheFor(tenantId) {
      let cache = renderCaches.get(tenantId);
      if (cache) {
        renderCaches.delete(tenantId);
      } else {
        cache = createRenderCache({ maxThreads: 32 });
      }
      renderCaches.set(tenantId, cache);
      while (renderCaches.size > 64) renderCaches.delete(renderCaches.keys().next().value as string);
      return cache;
    },
  };
}
