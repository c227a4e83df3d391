import type { Logger } from '@compactor/core';
import {
  createThreadFoldCache,
  DEFAULT_THREAD_FOLD_CACHE_BYTES,
  type ThreadFoldCache,
} from '@compactor/engine';
import { createRenderCache, DEFAULT_RENDER_CACHE_BYTES, type RenderCache } from '@compactor/render';
import { createThreadTokenizers, type ThreadTokenizers } from '@compactor/tokenizer';
import type { EnqueueCheckContext } from '../compaction/enqueue-check.js';
import { defaultCompactionDebounceMs, type IngestDependencies } from '../dependencies.js';
import { createIngestMetrics, type IngestMetrics } from '../metrics/ingest-metrics.js';
import { createThreadOrigins, type ThreadOrigins } from '../threads/thread-origin.js';
import { createThreadPolicies, type ThreadPolicies } from '../threads/thread-policies.js';

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
   * The render memo of every `/prompt`, bounded by bytes (least recently rendered threads go first).
   * One cache serves every tenant: a thread's memo is keyed by tenant and thread id (with the
   * provider, tokenizer and render format), so two tenants using the same ids never share a piece.
   */
  renderCache: RenderCache;
  /**
   * Folded threads kept between `/prompt` calls, bounded by bytes (ADR-0121): a render after one
   * append reads and folds that event, not the whole log. Keyed by tenant and thread.
   */
  folds: ThreadFoldCache;
}

/** The byte bounds of the two caches every ingest context keeps, summed: part of the server's heap budget (ADR-0425). */
export const INGEST_CONTEXT_CACHE_MAX_BYTES = DEFAULT_RENDER_CACHE_BYTES + DEFAULT_THREAD_FOLD_CACHE_BYTES;

export function createIngestContext(dependencies: IngestDependencies): IngestContext {
  const metrics = createIngestMetrics(dependencies.metrics);
  const logger = dependencies.logger;
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
    renderCache: createRenderCache({ maxBytes: DEFAULT_RENDER_CACHE_BYTES }),
    folds: createThreadFoldCache({ maxBytes: DEFAULT_THREAD_FOLD_CACHE_BYTES }),
  };
}
