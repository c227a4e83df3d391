import { createHash } from 'node:crypto';
import {
  type CachedSummary,
  IntegrityError,
  type SummaryCache,
  type SummaryCacheKey,
  ValidationError,
} from '@compactor/core';
import { readFileIfPresent, writeFileAtomically } from '../files/durable-files.js';
import { DataLayout } from '../paths/data-layout.js';
import { type EmbeddedStoreOptions, resolveStoreOptions, storeClosedError } from '../store-options.js';

interface SummaryFile {
  tenantId: string;
  key: SummaryCacheKey;
  value: CachedSummary;
}

const KEY_FIELDS = ['contentHash', 'schemaVersion', 'policyVersion', 'modelId', 'promptVersion'] as const;

/**
 * Cached summaries in a local directory: one file per tenant and key, named by the SHA-256 of the
 * key and replaced atomically. The file repeats the full key, and a read only hits on an exact match.
 */
export class EmbeddedSummaryCache implements SummaryCache {
  private readonly layout: DataLayout;
  private closed = false;

  /**
   * Open the summary cache over the configured data directory (no files are touched until first use).
   *
   * @param options - Store options; see {@link EmbeddedStoreOptions}.
   * @throws ValidationError when `sharing` is not a known mode.
   */
  constructor(options: EmbeddedStoreOptions = {}) {
    this.layout = new DataLayout(resolveStoreOptions(options).dataDir);
  }

  async get(tenantId: string, key: SummaryCacheKey): Promise<CachedSummary | null> {
    const path = this.pathFor(tenantId, key);
    const bytes = await readFileIfPresent(path);
    if (bytes === null) return null;
    let file: SummaryFile;
    try {
      file = JSON.parse(bytes.toString('utf8')) as SummaryFile;
    } catch (error) {
      throw new IntegrityError(`summary cache file ${path} is not valid JSON`, { cause: String(error) });
    }
    const sameKey = KEY_FIELDS.every((field) => file.key[field] === key[field]);
    return file.tenantId === tenantId && sameKey ? file.value : null;
  }

  async set(tenantId: string, key: SummaryCacheKey, value: CachedSummary): Promise<void> {
    const path = this.pathFor(tenantId, key);
    const file: SummaryFile = { tenantId, key: pickKey(key), value };
    await writeFileAtomically(path, JSON.stringify(file));
  }

  /** Refuse new calls (writes are atomic renames, nothing to wait for). */
  async close(): Promise<void> {
    this.closed = true;
  }

  private pathFor(tenantId: string, key: SummaryCacheKey): string {
    if (this.closed) throw storeClosedError('the embedded summary cache');
    for (const field of KEY_FIELDS) {
      if (typeof key?.[field] !== 'string') {
        throw new ValidationError(`summary cache key field ${field} must be a string`, [
          { path: field, message: 'invalid' },
        ]);
      }
    }
    // JSON, not summaryCacheKeyToString: its ':' joins are ambiguous when a field holds a ':'.
    const digest = createHash('sha256')
      .update(JSON.stringify(KEY_FIELDS.map((field) => key[field])), 'utf8')
      .digest('hex');
    return this.layout.summaryFile(this.layout.tenantSegment(tenantId), digest);
  }
}

function pickKey(key: SummaryCacheKey): SummaryCacheKey {
  return {
    contentHash: key.contentHash,
    schemaVersion: key.schemaVersion,
    policyVersion: key.policyVersion,
    modelId: key.modelId,
    promptVersion: key.promptVersion,
  };
}
