import { describe, expect, it } from 'vitest';
import { createInProcessCompactionQueue } from '../src/index.js';
import { testCompactionQueue } from './queue-contract.js';

testCompactionQueue('in-process', async ({ retry }) => {
  const queue = createInProcessCompactionQueue({ retry });
  return {
    producer: queue,
    startWorker: (options) => queue.startCompactionWorker(options),
    enqueueUnvalidated: (data) => queue.enqueueUnvalidated(data),
    cleanup: () => queue.close(),
  };
});

describe('in-process queue specifics', () => {
  it('allows one worker at a time, and a new one after the first closed', async () => {
    const queue = createInProcessCompactionQueue();
    const handler = async () => ({ status: 'unchanged' as const });
    const first = await queue.startCompactionWorker({ handler });
    await expect(queue.startCompactionWorker({ handler })).rejects.toThrow(/already has a running worker/);
    await first.close();
    const second = await queue.startCompactionWorker({ handler });
    await second.close();
    await queue.close();
  });

  it('refuses new checks once closed', async () => {
    const queue = createInProcessCompactionQueue();
    await queue.close();
    await expect(
      queue.enqueueCompactionCheck({ tenantId: 't', threadId: 'x', version: 1, reason: 'append' }),
    ).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('gives the handler a copy of the payload, not the producer object', async () => {
    const queue = createInProcessCompactionQueue();
    const received: unknown[] = [];
    const worker = await queue.startCompactionWorker({
      handler: async (job) => {
        received.push(job);
        return { status: 'unchanged' };
      },
    });
    const job = {
      tenantId: 't',
      threadId: 'x',
      version: 1,
      reason: 'manual' as const,
      manual: { force: true },
    };
    await queue.enqueueCompactionCheck(job, { debounceMs: 0 });
    await worker.close();
    await queue.close();
    expect(received).toEqual([job]);
    expect(received[0]).not.toBe(job);
  });

  it('hands the checks it still holds to onUnrunChecks when it closes, one per thread', async () => {
    const handedOver: unknown[] = [];
    const queue = createInProcessCompactionQueue({
      onUnrunChecks: async (jobs) => {
        handedOver.push(...jobs);
      },
    });
    await queue.enqueueCompactionCheck({ tenantId: 't', threadId: 'a', version: 1, reason: 'append' });
    // Replaces the first while it debounces: still one check for the thread.
    await queue.enqueueCompactionCheck({ tenantId: 't', threadId: 'a', version: 2, reason: 'append' });
    await queue.enqueueCompactionCheck(
      { tenantId: 't', threadId: 'b', version: 7, reason: 'append' },
      { debounceMs: 60_000 },
    );
    await queue.close();
    expect(handedOver).toEqual([
      { tenantId: 't', threadId: 'a', version: 2, reason: 'append' },
      { tenantId: 't', threadId: 'b', version: 7, reason: 'append' },
    ]);
  });

  it('hands over nothing for checks that ran, and survives a failing hand-over', async () => {
    let calls = 0;
    const queue = createInProcessCompactionQueue({
      onUnrunChecks: async () => {
        calls += 1;
        throw new Error('store closed');
      },
    });
    const worker = await queue.startCompactionWorker({ handler: async () => ({ status: 'unchanged' }) });
    await queue.enqueueCompactionCheck(
      { tenantId: 't', threadId: 'a', version: 1, reason: 'append' },
      { debounceMs: 0 },
    );
    await worker.close();
    await queue.close();
    expect(calls).toBe(0);
    const second = createInProcessCompactionQueue({
      onUnrunChecks: async () => {
        calls += 1;
        throw new Error('store closed');
      },
    });
    await second.enqueueCompactionCheck({ tenantId: 't', threadId: 'a', version: 1, reason: 'append' });
    await expect(second.close()).resolves.toBeUndefined();
    expect(calls).toBe(1);
  });
});
