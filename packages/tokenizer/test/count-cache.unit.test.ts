import { CompactorError } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  contentKey,
  countCacheEntryBytes,
  createCountCache,
  createTokenizer,
  defaultCountCacheBytes,
  defaultHashThreshold,
} from '../src/index.js';

describe('createCountCache', () => {
  it('never holds more than maxBytes, and keeps the most recently used entries that fit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 4_000 }),
        fc.array(
          fc.tuple(
            fc.constantFrom('get', 'set'),
            fc.integer({ min: 0, max: 30 }),
            fc.integer({ min: 0, max: 600 }),
          ),
          { maxLength: 300 },
        ),
        (maxBytes, operations) => {
          const cache = createCountCache({ maxBytes });
          // A key's length is fixed by its number, so a key always costs the same.
          const keyOf = (key: number) => `k${key}`.padEnd(1 + ((key * 37) % 600), '.');
          const recency: number[] = [];
          const touch = (key: number) => {
            const at = recency.indexOf(key);
            if (at >= 0) recency.splice(at, 1);
            recency.push(key);
          };
          for (const [operation, key] of operations) {
            if (operation === 'set') {
              cache.set(keyOf(key), key);
              if (countCacheEntryBytes(keyOf(key)) <= maxBytes) touch(key);
              else {
                const at = recency.indexOf(key);
                if (at >= 0) recency.splice(at, 1);
              }
            } else if (cache.get(keyOf(key)) !== undefined) touch(key);
            if (cache.bytes > maxBytes) return false;
            const accounted = recency.reduce((sum, k) => sum + countCacheEntryBytes(keyOf(k)), 0);
            // The model: the most recent entries, evicted from the oldest until they fit.
            let total = accounted;
            const kept = [...recency];
            while (total > maxBytes) total -= countCacheEntryBytes(keyOf(kept.shift()!));
            recency.splice(0, recency.length, ...kept);
          }
          const bytes = recency.reduce((sum, k) => sum + countCacheEntryBytes(keyOf(k)), 0);
          return (
            cache.bytes === bytes &&
            cache.size === recency.length &&
            recency.every((key) => cache.get(keyOf(key)) === key)
          );
        },
      ),
    );
  });

  it('keeps the default cache within its bytes while a tokenizer counts many long distinct strings', () => {
    const cache = createCountCache({ maxBytes: 64 * 1024 });
    const tokenizer = createTokenizer({ model: 'gpt-4o', cache, hashThreshold: 10_000 });
    for (let index = 0; index < 400; index++)
      tokenizer.countExact(`${index} ${'long line of text '.repeat(200)}`);
    expect(cache.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(400);
    expect(createCountCache().maxBytes).toBe(defaultCountCacheBytes);
  });

  it('never holds more than maxEntries, and keeps the most recently used', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.tuple(fc.constantFrom('get', 'set'), fc.integer({ min: 0, max: 40 })), {
          maxLength: 300,
        }),
        (maxEntries, operations) => {
          const cache = createCountCache({ maxEntries });
          const recency: number[] = [];
          const touch = (key: number) => {
            const at = recency.indexOf(key);
            if (at >= 0) recency.splice(at, 1);
            recency.push(key);
          };
          for (const [operation, key] of operations) {
            if (operation === 'set') {
              cache.set(`k${key}`, key);
              touch(key);
            } else if (cache.get(`k${key}`) !== undefined) touch(key);
            if (cache.size > maxEntries) return false;
          }
          // The model: the last maxEntries distinct keys touched are exactly the ones kept.
          const expected = recency.slice(-maxEntries);
          return expected.every((key) => cache.get(`k${key}`) === key) && cache.size === expected.length;
        },
      ),
    );
  });

  it('evicts the least recently used entry first', () => {
    const cache = createCountCache({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('rejects a bound that is not a positive integer', () => {
    const bounds = [0, -1, 1.5, Number.NaN];
    expect.assertions(bounds.length);
    for (const maxEntries of bounds) {
      try {
        createCountCache({ maxEntries });
      } catch (error) {
        expect(CompactorError.hasCode(error, 'validation')).toBe(true);
      }
    }
  });

  it('empties on clear', () => {
    const cache = createCountCache({ maxEntries: 5 });
    cache.set('a', 1);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('contentKey', () => {
  it('keys short strings by themselves, within their namespace', () => {
    expect(contentKey('o200k_base', 'hello')).toContain('hello');
    expect(contentKey('o200k_base', 'hello')).not.toBe(contentKey('cl100k_base', 'hello'));
  });

  it('hashes long strings to a short key', () => {
    const long = 'x'.repeat(defaultHashThreshold + 1);
    const key = contentKey('o200k_base', long);
    expect(key.length).toBeLessThan(80);
    expect(key).not.toContain(long);
  });

  it('gives different long strings different keys', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 300, maxLength: 400 }),
        fc.string({ minLength: 300, maxLength: 400 }),
        (a, b) => {
          return a === b || contentKey('n', a) !== contentKey('n', b);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('honours a custom threshold', () => {
    expect(contentKey('n', 'abcdef', 3)).not.toContain('abcdef');
    expect(contentKey('n', 'abc', 3)).toContain('abc');
  });
});
