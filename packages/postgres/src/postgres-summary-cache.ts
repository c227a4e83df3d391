import {
  type CachedSummary,
  requireIds,
  type SummaryCache,
  type SummaryCacheKey,
  summaryCacheKeyToString,
} from '@compactor/core';
import type { Pool } from 'pg';
import { mapPostgresError } from './postgres-error-mapping.js';
import type { SqlNames } from './sql-names.js';

/**
 * Cached summaries, one row per (tenant, full cache key); the tenant is part of every lookup.
 * `set` is one upsert, so concurrent sets of one key leave one whole value (the last to commit).
 */
export class PostgresSummaryCache implements SummaryCache {
  /**
   * @param pool - The connection pool.
   * @param names - The schema's table names.
   */
  constructor(
    private readonly pool: Pool,
    private readonly names: SqlNames,
  ) {}

  async get(tenantId: string, key: SummaryCacheKey): Promise<CachedSummary | null> {
    requireIds({ tenantId });
    try {
      const result = await this.pool.query<{ value: CachedSummary }>(
        `SELECT value FROM ${this.names.summaries} WHERE tenant_id = $1 AND cache_key = $2`,
        [tenantId, summaryCacheKeyToString(key)],
      );
      return result.rows[0]?.value ?? null;
    } catch (error) {
      throw mapPostgresError(error, 'summary cache get');
    }
  }

  async set(tenantId: string, key: SummaryCacheKey, value: CachedSummary): Promise<void> {
    requireIds({ tenantId });
    const stored: CachedSummary = {
      summary: value.summary,
      summaryTokenCount: value.summaryTokenCount,
      costUsd: value.costUsd,
      createdAt: value.createdAt,
    };
    try {
      await this.pool.query(
        `INSERT INTO ${this.names.summaries} (tenant_id, cache_key, value) VALUES ($1, $2, $3::json)
          ON CONFLICT (tenant_id, cache_key) DO UPDATE SET value = EXCLUDED.value`,
        [tenantId, summaryCacheKeyToString(key), JSON.stringify(stored)],
      );
    } catch (error) {
      throw mapPostgresError(error, 'summary cache set');
    }
  }
}
