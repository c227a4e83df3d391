import type { Logger } from '@compactor/core';
import { createRenderCache, type RenderCache } from '@compactor/render';
import { createThreadTokenizers, type ThreadTokenizers } from '@compactor/tokenizer';
import type { EnqueueCheckContext } from '../compaction/enqueue-check.js';
import { defaultCompactionDebounceMs, type IngestDependencies } from '../dependencies.js';
import { createIngestMetrics, type IngestMetrics } from '../metrics/ingest-metrics.js';
import { createThreadOrigins, type ThreadOrigins } from '../threads/thread-origin.js';

/** What every route handler shares. */
export interface IngestContext {
  dependencies: IngestDependencies;
  logger: Logger;
  metrics: IngestMetrics;
  origins: ThreadOrigins;
  tokenizers: ThreadTokenizers;
  enqueue: EnqueueCheckContext;
  /**
   * The render memo of every `/prompt`, bounded by bytes (least recently rendered threads go first).
   * One cache serves every tenant: a thread's memo is keyed by tenant and thread id (with the
   * provider, tokenizer and render format), so two tenants using the same ids never share a piece.
   */
  renderCache: RenderCache;
}

export function createIngestContext(dependencies: IngestDependencies): IngestContext {
  const metrics = createIngestMetrics(dependencies.metrics);
  const logger = dependencies.logger;
  return {
    dependencies,
    logger,
    metrics,
    origins: createThreadOrigins(dependencies.stores.events),
    tokenizers: createThreadTokenizers(),
    enqueue: {
      events: dependencies.stores.events,
      queue: dependencies.queue,
      logger,
      metrics,
      debounceMs: dependencies.compactionDebounceMs ?? defaultCompactionDebounceMs,
    },
    renderCache: createRenderCache(),
  };
}
