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
});
