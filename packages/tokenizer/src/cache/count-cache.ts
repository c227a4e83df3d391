import { ValidationError } from '@compactor/core';

/**
 * A bounded map from content key to token count, shared by every tokenizer that is given it.
 * Keys already carry the encoding (see `contentKey`), so one cache can serve several encodings.
 */
export interface CountCache {
  /**
   * @param key - A `contentKey`.
   * @returns The count, or undefined (a hit becomes the most recently used).
   */
  get(key: string): number | undefined;
  /**
   * Store a count, evicting the least recently used entries to stay within the bounds.
   *
   * @param key - A `contentKey`.
   * @param count - Its token count.
   */
  set(key: string, count: number): void;
  readonly size: number;
  /** What the entries held now are accounted to cost (see `countCacheEntryBytes`). */
  readonly bytes: number;
  readonly maxBytes: number;
  /** An optional second bound on the number of entries (`Infinity` when not set). */
  readonly maxEntries: number;
  /** Forget every entry. */
  clear(): void;
}

/** The bounds of a {@link CountCache}. */
export interface CountCacheOptions {
  /**
   * The entries' accounted bytes never exceed this; the least recently used go first.
   * @defaultValue {@link defaultCountCacheBytes} (8 MiB)
   */
  maxBytes?: number;
  /**
   * Optionally, at most this many entries as well.
   * @defaultValue unbounded (bytes only)
   */
  maxEntries?: number;
}

/** A count cache's byte bound when none is given: 8 MiB. */
export const defaultCountCacheBytes = 8 * 1024 * 1024;

/**
 * Bytes an entry is accounted to cost: the key's UTF-16 code units at 2 bytes (V8 stores some
 * strings in 1 byte per character; counting 2 over-estimates them) plus 64 bytes for the map
 * entry, the number and the string header.
 *
 * @param key - The entry's key.
 * @returns Its accounted bytes.
 */
export function countCacheEntryBytes(key: string): number {
  return 2 * key.length + 64;
}

function checkBound(name: string, value: number): void {
  if (value === Number.POSITIVE_INFINITY) return;
  if (!Number.isInteger(value) || value < 1) {
    throw new ValidationError(`count cache ${name} must be a positive integer`, [
      { path: name, message: `got ${value}` },
    ]);
  }
}

/**
 * Least-recently-used eviction on a `Map`, whose iteration order is insertion order: a hit is
 * moved to the end by deleting and re-inserting it, and eviction takes the first keys until the
 * new entry fits. An entry larger than the whole bound is not kept at all.
 *
 * @param options - Byte and entry bounds.
 * @returns An empty cache.
 * @throws ValidationError when a bound is not a positive integer (or `Infinity` for `maxEntries`).
 */
export function createCountCache(options: CountCacheOptions = {}): CountCache {
  const maxBytes = options.maxBytes ?? defaultCountCacheBytes;
  const maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  checkBound('maxBytes', maxBytes);
  checkBound('maxEntries', maxEntries);
  const entries = new Map<string, number>();
  let bytes = 0;

  function remove(key: string): void {
    if (entries.delete(key)) bytes -= countCacheEntryBytes(key);
  }

  return {
    maxBytes,
    maxEntries,
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
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
      remove(key);
      const cost = countCacheEntryBytes(key);
      if (cost > maxBytes) return;
      while (entries.size > 0 && (bytes + cost > maxBytes || entries.size >= maxEntries)) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        remove(oldest.value);
      }
      entries.set(key, count);
      bytes += cost;
    },
    clear() {
      entries.clear();
      bytes = 0;
    },
  };
}
