import {
  type CachedSummary,
  requireIds,
  type SummaryCache,
  type SummaryCacheKey,
  summaryCacheKeyToString,
} from '@compactor/core';
import { duplicateKeyInfo } from './duplicate-key-error.js';
import type { MongoCollections } from './mongo-collections.js';
import { mapMongoError } from './mongo-error-mapping.js';

/** Cached summaries, one document per (tenant, full cache key); the tenant is part of every lookup. */
export class MongoSummaryCache implements SummaryCache {
  /** @param collections - The collections from {@link openCollections}. */
  constructor(private readonly collections: MongoCollections) {}

  async get(tenantId: string, key: SummaryCacheKey): Promise<CachedSummary | null> {
    requireIds({ tenantId });
    try {
      const document = await this.collections.summaries.findOne(
        { tenantId, key: summaryCacheKeyToString(key) },
        { projection: { _id: 0 } },
      );
      if (document === null) return null;
      return {
        summary: document.summary,
        summaryTokenCount: document.summaryTokenCount,
        costUsd: document.costUsd,
        createdAt: document.createdAt,
      };
    } catch (error) {
      throw mapMongoError(error, 'summary cache get');
    }
  }

  async set(tenantId: string, key: SummaryCacheKey, value: CachedSummary): Promise<void> {
    requireIds({ tenantId });
    const document = {
      tenantId,
      key: summaryCacheKeyToString(key),
      summary: value.summary,
      summaryTokenCount: value.summaryTokenCount,
      costUsd: value.costUsd,
      createdAt: value.createdAt,
    };
    const filter = { tenantId: document.tenantId, key: document.key };
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.collections.summaries.replaceOne(filter, document, {
          upsert: true,
          ignoreUndefined: true,
        });
        return;
      } catch (error) {
        // Two upserts of a new key can race to insert; the loser's retry becomes an update.
        if (duplicateKeyInfo(error) === null || attempt >= 3) throw mapMongoError(error, 'summary cache set');
      }
    }
  }
}
