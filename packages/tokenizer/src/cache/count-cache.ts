import { ValidationError } from '@compactor/core';

/**
 * A bounded map from content key to token count, shared by every tokenizer that is given it.
 * Keys already carry the encoding (see `contentKey`), so one cache can serve several encodings.
 */
export interface CountCache {
  get(key: string): number | undefined;
  set(key: string, count: number): void;
  readonly size: number;
  readonly maxEntries: number;
  clear(): void;
}

export interface CountCacheOptions {
  /** At most this many counts are kept; the least recently used goes first. Default 20,000. */
  maxEntries?: number;
}

export const defaultCountCacheEntries = 20_000;

/**
 * Least-recently-used eviction on a `Map`, whose iteration order is insertion order: a hit is
 * moved to the end by deleting and re-inserting it, and eviction takes the first key.
 */
export function createCountCache(options: CountCacheOptions = {}): CountCache {
  const maxEntries = options.maxEntries ?? defaultCountCacheEntries;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new ValidationError('count cache maxEntries must be a positive integer', [
      { path: 'maxEntries', message: `got ${maxEntries}` },
    ]);
  }
  const entries = new Map<string, number>();
  return {
    maxEntries,
    get size() {
      return entries.size;
    },
    get(key) {
      const count = entries.get(key);
      if (count !== undefined) {
        entries.delete(key);
        entries.set(key, count);
      }
      return count;
    },
    set(key, count) {
      if (entries.has(key)) entries.delete(key);
      else if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(key, count);
    },
    clear() {
      entries.clear();
    },
  };
}
