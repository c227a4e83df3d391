import { noopLogger } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import { afterEach, describe, expect, it } from 'vitest';
import { sweepPendingThreads } from '../src/index.js';
import { RecordingQueue } from './support/recording-queue.js';
import { temporaryDirectory } from './support/temporary-directory.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function storesWithThreads(threadIds: string[]): Promise<EmbeddedStores> {
  const directory = await temporaryDirectory('compactor-sweeper-');
  cleanups.push(directory.remove);
  const stores = await createEmbeddedStores({ dataDir: directory.path });
  cleanups.push(() => stores.close());
  for (const threadId of threadIds) {
    const { events } = codingSession(threadId);
    await stores.events.append('tenant-a', threadId, asInputs(events));
  }
  return stores;
}

describe('sweepPendingThreads', () => {
  it('enqueues a check for each pending thread, then clears its mark', async () => {
    const stores = await storesWithThreads(['pending', 'fine']);
    await stores.events.setCompactionPending('tenant-a', 'pending', true);
    const version = (await stores.events.getThread('tenant-a', 'pending'))!.version;
    const queue = new RecordingQueue();
    const outcomes: string[] = [];

    const result = await sweepPendingThreads({
      events: stores.events,
      queue,
      logger: noopLogger,
      onThread: (outcome) => outcomes.push(outcome),
    });

    expect(queue.jobs).toEqual([
      {
        job: { tenantId: 'tenant-a', threadId: 'pending', version, reason: 'sweeper' },
        options: { debounceMs: 0 },
      },
    ]);
    expect(result).toEqual({
      enqueued: [{ tenantId: 'tenant-a', threadId: 'pending', version }],
      failed: [],
    });
    expect(outcomes).toEqual(['enqueued']);
    expect(await stores.events.listCompactionPending()).toEqual([]);
    expect((await stores.events.getThread('tenant-a', 'pending'))!.compactionPending).toBe(false);
  });

  it('leaves the mark set when the enqueue fails, so the next sweep tries again', async () => {
    const stores = await storesWithThreads(['pending']);
    await stores.events.setCompactionPending('tenant-a', 'pending', true);
    const queue = new RecordingQueue();
    queue.failing = true;
    const outcomes: string[] = [];

    const result = await sweepPendingThreads({
      events: stores.events,
      queue,
      logger: noopLogger,
      onThread: (outcome) => outcomes.push(outcome),
    });

    expect(result).toEqual({ enqueued: [], failed: [{ tenantId: 'tenant-a', threadId: 'pending' }] });
    expect(outcomes).toEqual(['failed']);
    expect(await stores.events.listCompactionPending()).toEqual([
      { tenantId: 'tenant-a', threadId: 'pending' },
    ]);

    queue.failing = false;
    const retried = await sweepPendingThreads({ events: stores.events, queue, logger: noopLogger });
    expect(retried.enqueued.map((entry) => entry.threadId)).toEqual(['pending']);
    expect(await stores.events.listCompactionPending()).toEqual([]);
  });

  it('enqueues once more when the thread moved on while it was swept (its new mark could be lost)', async () => {
    const stores = await storesWithThreads(['busy']);
    await stores.events.setCompactionPending('tenant-a', 'busy', true);
    const before = (await stores.events.getThread('tenant-a', 'busy'))!.version;
    const queue = new RecordingQueue();
    let appended = false;
    // An append lands (and fails to enqueue, marking the thread) while the sweeper enqueues.
    queue.beforeEnqueue = async () => {
      if (appended) return;
      appended = true;
      await stores.events.append('tenant-a', 'busy', [
        {
          type: 'message.appended',
          eventId: 'late-event',
          message: { id: 'late', role: 'user', content: [{ type: 'text', text: 'one more thing' }] },
        },
      ]);
      await stores.events.setCompactionPending('tenant-a', 'busy', true);
    };

    const result = await sweepPendingThreads({ events: stores.events, queue, logger: noopLogger });

    expect(queue.jobs.map((entry) => entry.job.version)).toEqual([before, before + 1]);
    expect(result.enqueued).toEqual([{ tenantId: 'tenant-a', threadId: 'busy', version: before + 1 }]);
    expect(await stores.events.listCompactionPending()).toEqual([]);
  });

  it('goes through every page of pending threads in one sweep', async () => {
    const threadIds = Array.from({ length: 7 }, (_, index) => `thread-${index}`);
    const stores = await storesWithThreads(threadIds);
    for (const threadId of threadIds) await stores.events.setCompactionPending('tenant-a', threadId, true);
    const queue = new RecordingQueue();

    const result = await sweepPendingThreads({
      events: stores.events,
      queue,
      logger: noopLogger,
      pageSize: 3,
    });

    expect(result.enqueued.map((entry) => entry.threadId).sort()).toEqual(threadIds);
    expect(await stores.events.listCompactionPending()).toEqual([]);
  });
});
