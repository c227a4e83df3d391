import type { StructuredSummary } from '../summary/structured-summary.js';

/** Everything that changes a summary is in its key (ADR-0014). */
export interface SummaryCacheKey {
  contentHash: string;
  schemaVersion: string;
  policyVersion: string;
  modelId: string;
  promptVersion: string;
}

/**
 * A key as one string, fields joined by `:`.
 *
 * @param key - The key.
 * @returns Its string form.
 */
export function summaryCacheKeyToString(key: SummaryCacheKey): string {
  return [key.contentHash, key.schemaVersion, key.policyVersion, key.modelId, key.promptVersion].join(':');
}

/** A cached summary and what producing it cost. */
export interface CachedSummary {
  summary: StructuredSummary;
  summaryTokenCount: number;
  costUsd: number;
  createdAt: string;
}

/**
 * Tenant-scoped: one tenant's cached summary is never served to another. A key matches only if
 * every one of its fields is equal. `set` on an existing key replaces the value (last write wins).
 */
export interface SummaryCache {
  /**
   * @param tenantId - The tenant asking.
   * @param key - The summary's key.
   * @returns The cached summary, or null.
   */
  get(tenantId: string, key: SummaryCacheKey): Promise<CachedSummary | null>;
  /**
   * @param tenantId - The owning tenant.
   * @param key - The summary's key.
   * @param value - The summary and its cost.
   */
  set(tenantId: string, key: SummaryCacheKey, value: CachedSummary): Promise<void>;
}
