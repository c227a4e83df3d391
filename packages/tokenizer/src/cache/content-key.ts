import { createHash } from 'node:crypto';

/**
 * Strings up to this many UTF-16 units are their own key: a `Map` lookup by string is about
 * 100 ns, while hashing costs 1.5–4 µs (bench/cache-keys.ts). Longer strings are hashed so the
 * cache's memory stays bounded by `maxEntries × (threshold + 64)` characters, never by content.
 */
export const defaultHashThreshold = 256;

/**
 * The cache key of `text` counted with `namespace` (the encoding). SHA-256 rather than a fast
 * 32-bit hash: a collision would silently return another text's count, and for long strings
 * node:crypto is as fast as a JavaScript FNV-1a anyway (bench/cache-keys.ts).
 *
 * @param namespace - The encoding (and anything else the count depends on).
 * @param text - The counted text.
 * @param hashThreshold - Longer texts are keyed by their hash.
 * @returns The key.
 */
export function contentKey(namespace: string, text: string, hashThreshold = defaultHashThreshold): string {
  if (text.length <= hashThreshold) return `${namespace}|${text}`;
  return `${namespace}#${text.length}:${createHash('sha256').update(text).digest('base64')}`;
}
