import {
  redisAvailableForTests,
  redisInstallHint,
  startRedisForTests,
} from '@compactor/testkit/redis-server';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

const usesExternalRedis = Boolean(process.env.REDIS_URL);
const canStartOwn = !usesExternalRedis && redisAvailableForTests();

function client(url: string): Redis {
  const connection = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // Connection errors surface through connect(); without a listener ioredis also prints them.
  connection.on('error', () => {});
  return connection;
}

describe('Redis test harness (testkit)', () => {
  it.skipIf(!canStartOwn)(
    `starts a private redis-server on a free loopback port and stops it ${
      usesExternalRedis ? '(not run: REDIS_URL is set)' : canStartOwn ? '' : redisInstallHint
    }`.trim(),
    async () => {
      const redis = await startRedisForTests();
      expect(redis).not.toBeNull();
      const url = redis!.url;
      expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(url).not.toBe('redis://127.0.0.1:6379');
      const connection = client(url);
      await connection.connect();
      expect(await connection.ping()).toBe('PONG');
      expect(await connection.config('GET', 'save')).toEqual(['save', '']);
      connection.disconnect();

      await redis!.stop();
      const afterStop = client(url);
      await expect(afterStop.connect()).rejects.toThrow();
      afterStop.disconnect();
    },
  );
});
