import type { CompactionCheckJob } from '@compactor/core';
import { noopLogger } from '@compactor/core';
import { createInProcessCompactionQueue } from '@compactor/queue';
import { sweepPendingThreads } from '@compactor/worker';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  RecordingQueue,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

let ingest: TestIngest | undefined;
afterEach(async () => {
  await ingest?.cleanup();
  ingest = undefined;
});

describe('compaction checks after an append', () => {
  it('enqueues one debounced check per append, with ids only', async () => {
    const queue = new RecordingQueue();
    ingest = await startTestIngest({ queue });
    await createThread(ingest.app, KEY_A, { threadId: 'queued', model: 'gpt-4o' });
    await appendEvents(ingest.app, KEY_A, 'queued', [
      messageEvent('user', 'a secret'),
      messageEvent('assistant', 'b'),
    ]);
    expect(queue.jobs).toEqual([
      {
        job: { tenantId: TENANT_A, threadId: 'queued', version: 3, reason: 'append' },
        options: { debounceMs: 250 },
      },
    ]);
    expect(JSON.stringify(queue.jobs)).not.toContain('a secret');
  });

  it('still answers 201 when the queue fails, marks the thread pending, and the sweeper enqueues it', async () => {
    const queue = new RecordingQueue();
    ingest = await startTestIngest({ queue });
    await createThread(ingest.app, KEY_A, { threadId: 'unlucky', model: 'gpt-4o' });
    queue.failing = true;
    const events = [messageEvent('user', 'keep me'), messageEvent('assistant', 'kept')];
    const response = await appendEvents(ingest.app, KEY_A, 'unlucky', events);
    expect(response.statusCode).toBe(201);
    expect(response.json().version).toBe(3);
    // No accepted event is lost: the events are stored, and the thread says a check is owed.
    const stored = await ingest.stores.events.readAll(TENANT_A, 'unlucky');
    expect(stored.map((event) => event.eventId)).toEqual([
      'thread.created',
      events[0]!.eventId,
      events[1]!.eventId,
    ]);
    const thread = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/unlucky',
      headers: bearer(KEY_A),
    });
    expect(thread.json().compactionPending).toBe(true);
    expect(await ingest.stores.events.listCompactionPending()).toEqual([
      { tenantId: TENANT_A, threadId: 'unlucky' },
    ]);

    // While the queue is still down the sweeper leaves the mark in place.
    // The worker's sweeper (apps/worker) is what runs in production; it reads the mark the ingest set.
    const outcomes: string[] = [];
    const sweep = (target = queue) =>
      sweepPendingThreads({
        events: ingest!.stores.events,
        queue: target,
        logger: noopLogger,
        onThread: (outcome) => outcomes.push(outcome),
      });
    const failedSweep = await sweep();
    expect(failedSweep).toEqual({ enqueued: [], failed: [{ tenantId: TENANT_A, threadId: 'unlucky' }] });
    expect(await ingest.stores.events.listCompactionPending()).toHaveLength(1);

    queue.failing = false;
    const succeeded = await sweep();
    expect(succeeded).toEqual({
      enqueued: [{ tenantId: TENANT_A, threadId: 'unlucky', version: 3 }],
      failed: [],
    });
    expect(queue.jobs.map((entry) => entry.job)).toEqual([
      { tenantId: TENANT_A, threadId: 'unlucky', version: 3, reason: 'sweeper' },
    ]);
    expect(await ingest.stores.events.listCompactionPending()).toEqual([]);
    expect((await ingest.stores.events.getThread(TENANT_A, 'unlucky'))!.compactionPending).toBe(false);

    expect(outcomes).toEqual(['failed', 'enqueued']);
  });

  it('sweeps a thread that moved on while it was being swept with a check of its newest version', async () => {
    const inner = new RecordingQueue();
    ingest = await startTestIngest({ queue: inner });
    const app = ingest.app;
    await createThread(app, KEY_A, { threadId: 'busy', model: 'gpt-4o' });
    await ingest.stores.events.setCompactionPending(TENANT_A, 'busy', true);
    // The append lands between the sweeper's enqueue and its clearing of the mark.
    const racing = {
      jobs: [] as CompactionCheckJob[],
      async enqueueCompactionCheck(job: CompactionCheckJob) {
        this.jobs.push(job);
        if (this.jobs.length === 1) await appendEvents(app, KEY_A, 'busy', [messageEvent('user', 'late')]);
      },
      async close() {},
    };
    await sweepPendingThreads({ events: ingest.stores.events, queue: racing, logger: noopLogger });
    expect(racing.jobs.map((job) => job.version)).toEqual([1, 2]);
  });

  it('works with the in-process queue of @compactor/queue', async () => {
    const queue = createInProcessCompactionQueue({ defaultDebounceMs: 0 });
    ingest = await startTestIngest({ queue });
    const handled: CompactionCheckJob[] = [];
    let resolveHandled: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      resolveHandled = resolve;
    });
    const worker = await queue.startCompactionWorker({
      handler: async (job) => {
        handled.push(job);
        resolveHandled();
        return { status: 'unchanged' };
      },
    });
    try {
      await createThread(ingest.app, KEY_A, { threadId: 'in-process', model: 'gpt-4o' });
      const response = await appendEvents(ingest.app, KEY_A, 'in-process', [messageEvent('user', 'hello')]);
      expect(response.statusCode).toBe(201);
      await done;
      expect(handled).toEqual([{ tenantId: TENANT_A, threadId: 'in-process', version: 2, reason: 'append' }]);
      expect((await ingest.stores.events.getThread(TENANT_A, 'in-process'))!.compactionPending).toBe(false);

      // A closed queue refuses checks: the append still succeeds and the thread is marked pending.
      await worker.close();
      await queue.close();
      const afterClose = await appendEvents(ingest.app, KEY_A, 'in-process', [
        messageEvent('assistant', 'hi'),
      ]);
      expect(afterClose.statusCode).toBe(201);
      expect((await ingest.stores.events.getThread(TENANT_A, 'in-process'))!.compactionPending).toBe(true);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
