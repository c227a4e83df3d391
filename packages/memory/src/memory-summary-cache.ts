import {
  type CachedSummary,
  type SummaryCache,
  type SummaryCacheKey,
  summaryCacheKeyToString,
} from '@compactor/core';

/** Summaries in memory, scoped by tenant; at most `maxEntries`, the oldest written dropped first. */
export class MemorySummaryCache implements SummaryCache {
  private readonly entries = new Map<string, CachedSummary>();

  constructor(private readonly maxEntries = 10_000) {}

  async get(tenantId: string, key: SummaryCacheKey): Promise<CachedSummary | null> {
    const found = this.entries.get(entryKey(tenantId, key));
    return found ? structuredClone(found) : null;
  }

  async set(tenantId: string, key: SummaryCacheKey, value: CachedSummary): Promise<void> {
    const name = entryKey(tenantId, key);
    this.entries.delete(name);
    this.entries.set(name, structuredClone(value));
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

function entryKey(tenantId: string, key: SummaryCacheKey): string {
  return `${tenantId}\u0000${summaryCacheKeyToString(key)}`;
}
