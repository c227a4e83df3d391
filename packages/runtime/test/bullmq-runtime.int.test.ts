import { randomUUID } from 'node:crypto';
import { type CompactionCheckJob, CompactorError, noopLogger } from '@compactor/core';
import {
  type RedisForTests,
  redisAvailableForTests,
  redisInstallHint,
  requireRedisForTests,
} from '@compactor/testkit/redis-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, loadRuntimeConfig, type Runtime } from '../src/index.js';
import { unusedLoopbackPort } from './support/free-port.js';
import { temporaryDirectory } from './support/temporary-directory.js';

const available = redisAvailableForTests();
const suiteName = available ? 'createRuntime with BullMQ' : `createRuntime with BullMQ ${redisInstallHint}`;

describe.skipIf(!available)(suiteName, () => {
  let redis: RedisForTests;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    redis = await requireRedisForTests();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function bullmqRuntime(environment: Record<string, string>): Promise<Runtime> {
    const directory = await temporaryDirectory('compactor-runtime-bullmq-');
    cleanups.push(directory.remove);
    const config = loadRuntimeConfig({
      COMPACTOR_DATA_DIR: directory.path,
      COMPACTOR_QUEUE: 'bullmq',
      COMPACTOR_QUEUE_PREFIX: `{runtime-${randomUUID()}}`,
      COMPACTOR_DEBOUNCE_MS: '0',
      ...environment,
    });
    const runtime = await createRuntime(config, { logger: noopLogger });
    cleanups.push(() => runtime.close());
    return runtime;
  }

  it('delivers a check from the producer to a consumer through Redis', async () => {
    const runtime = await bullmqRuntime({ REDIS_URL: redis.url });
    const received: CompactionCheckJob[] = [];
    await runtime.startConsumer(async (job) => {
      received.push(job);
      return { status: 'skipped' };
    });
    const job: CompactionCheckJob = {
      tenantId: 'tenant-a',
      threadId: 'thread-1',
      version: 7,
      reason: 'append',
    };
    await runtime.queue.enqueueCompactionCheck(job);
    await expect.poll(() => received, { timeout: 10_000 }).toEqual([job]);
    expect(await runtime.ready()).toEqual({
      ok: true,
      checks: { store: 'ok', artifacts: 'ok', queue: 'ok' },
    });
  });

  it('fails an enqueue fast, as a retryable error, when Redis does not answer', async () => {
    const port = await unusedLoopbackPort();
    const runtime = await bullmqRuntime({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      COMPACTOR_ENQUEUE_TIMEOUT_MS: '300',
    });
    const started = performance.now();
    const error = await runtime.queue
      .enqueueCompactionCheck({ tenantId: 'tenant-a', threadId: 'thread-1', version: 1, reason: 'append' })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    const elapsed = performance.now() - started;
    expect(CompactorError.hasCode(error, 'unavailable')).toBe(true);
    expect((error as CompactorError).isRetryable).toBe(true);
    expect(elapsed).toBeLessThan(1_500);
    const readiness = await runtime.ready();
    expect(readiness.ok).toBe(false);
    expect(readiness.checks.queue).not.toBe('ok');
    expect(readiness.checks.store).toBe('ok');
  });
});
