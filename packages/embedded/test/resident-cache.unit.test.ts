import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResidentCache } from '../src/memory/resident-cache.js';

interface Value {
  key: string;
  bytes: number;
}

describe('ResidentCache', () => {
  it('drops least recently used idle entries first and never one in use', async () => {
    const loads: string[] = [];
    const cache = new ResidentCache<Value>({
      maxBytes: 300,
      sizeOf: (value) => value.bytes,
      worthKeeping: () => true,
    });
    const use = (key: string, during?: () => Promise<void>) =>
      cache.use(
        key,
        async () => {
          loads.push(key);
          return { key, bytes: 100 };
        },
        async (value) => {
          await during?.();
          return value;
        },
      );
    await use('a');
    await use('b');
    await use('c');
    await use('a'); // a is now the most recent
    await use('d'); // over budget: b goes
    expect(loads).toEqual(['a', 'b', 'c', 'd']);
    await use('a');
    await use('b');
    expect(loads).toEqual(['a', 'b', 'c', 'd', 'b']);
    // While c is in use it stays, even as the least recently used.
    const loadsOfC = () => loads.filter((key) => key === 'c').length;
    const before = loadsOfC();
    await use('c', async () => {
      await use('e');
      await use('f');
      await use('g');
    });
    expect(loadsOfC()).toBe(before + 1);
    await use('c');
    expect(loadsOfC()).toBe(before + 1);
  });

  it('does not keep values it is told are not worth keeping, nor failed loads', async () => {
    const cache = new ResidentCache<Value>({
      maxBytes: 1_000,
      sizeOf: (value) => value.bytes,
      worthKeeping: (value) => value.bytes > 0,
    });
    await cache.use(
      'absent',
      async () => ({ key: 'absent', bytes: 0 }),
      () => undefined,
    );
    await expect(
      cache.use(
        'broken',
        () => Promise.reject(new Error('disk')),
        () => undefined,
      ),
    ).rejects.toThrow('disk');
    expect(cache.stats).toEqual({ entries: 0, bytes: 0, maxBytes: 1_000 });
  });

  it('holds at most its budget once idle, and loads a key once while any caller uses it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ key: fc.integer({ min: 0, max: 12 }), bytes: fc.integer({ min: 0, max: 400 }) }),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        fc.integer({ min: 100, max: 1_500 }),
        async (operations, maxBytes) => {
          const liveLoads = new Map<string, number>();
          const cache = new ResidentCache<Value>({
            maxBytes,
            sizeOf: (value) => value.bytes,
            worthKeeping: (value) => value.bytes > 0,
          });
          await Promise.all(
            operations.map(({ key, bytes }) =>
              cache.use(
                String(key),
                async () => {
                  const loaded = (liveLoads.get(String(key)) ?? 0) + 1;
                  liveLoads.set(String(key), loaded);
                  return { key: String(key), bytes };
                },
                async (value) => {
                  await Promise.resolve();
                  expect(value.key).toBe(String(key));
                },
              ),
            ),
          );
          expect(cache.stats.bytes).toBeLessThanOrEqual(maxBytes);
          // All calls overlapped: every key was loaded exactly once.
          for (const count of liveLoads.values()) expect(count).toBe(1);
        },
      ),
      { numRuns: 200 },
    );
  });
});
