import { randomUUID } from 'node:crypto';
import {
  redisInstallHint,
  restartableRedisAvailableForTests,
  startRestartableRedisForTests,
} from '@compactor/testkit/redis-server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closingReserveMs,
  createBullmqJobQueue,
  ShutdownDeadline,
  startBullmqCompactionWorker,
} from '../src/index.js';
import { waitUntil } from './support/wait.js';

const available = restartableRedisAvailableForTests();
const suiteName = available
  ? 'BullMQ close budgeted from one deadline (ADR-0100)'
  : `BullMQ close budgeted from one deadline (ADR-0100) ${redisInstallHint}`;

/** Timer and event-loop slack allowed past a deadline on the shared machine. */
const SLACK_MS = 150;

describe.skipIf(!available)(suiteName, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('interrupts a running check a closing reserve early and is closed by the deadline, Redis gone', async () => {
    const redis = await startRestartableRedisForTests();
    cleanups.push(() => redis.stop());
    const prefix = `{close-deadline-${randomUUID()}}`;
    let abortedAt: number | undefined;
    let started = false;
    // A check that ignores its signal and never finishes: only the worker's close can end it.
    const worker = await startBullmqCompactionWorker({
      connection: { url: redis.url },
      prefix,
      lockDurationMs: 1_000,
      handler: (_job, context) => {
        started = true;
        context.signal.addEventListener('abort', () => {
          abortedAt = performance.now();
        });
        return new Promise(() => {});
      },
    });
    const producer = createBullmqJobQueue({ connection: { url: redis.url }, prefix });
    await producer.enqueueCompactionCheck(
      { tenantId: 'tenant-a', threadId: 'thread-a', version: 1, reason: 'append' },
      { debounceMs: 0 },
    );
    await waitUntil(() => started, 'the check to start', 15_000);
    await redis.takeDown();

    const totalMs = 2_000;
    const closeStartedAt = performance.now();
    const deadline = ShutdownDeadline.after(totalMs);
    await worker.close(deadline);
    const closedAfterMs = performance.now() - closeStartedAt;
    const producerStartedAt = performance.now();
    await producer.close();
    const producerClosedAfterMs = performance.now() - producerStartedAt;

    expect(closedAfterMs).toBeLessThan(totalMs + SLACK_MS);
    expect(abortedAt).toBeDefined();
    const interruptedAfterMs = (abortedAt ?? 0) - closeStartedAt;
    expect(interruptedAfterMs).toBeGreaterThanOrEqual(totalMs - closingReserveMs(totalMs) - SLACK_MS);
    expect(interruptedAfterMs).toBeLessThan(totalMs - closingReserveMs(totalMs) + SLACK_MS);
    // A producer connection already waiting for the missing Redis is dropped, not closed politely.
    expect(producerClosedAfterMs).toBeLessThan(250);
  }, 60_000);

  it('keeps a closing reserve of a second, or a third of short grace periods', () => {
    expect(closingReserveMs(30_000)).toBe(1_000);
    expect(closingReserveMs(3_000)).toBe(1_000);
    expect(closingReserveMs(1_500)).toBe(500);
    expect(closingReserveMs(200)).toBe(66);
    expect(closingReserveMs(0)).toBe(0);
  });
});
