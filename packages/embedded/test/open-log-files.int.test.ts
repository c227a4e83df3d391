import { readdir, readlink } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { openTemporaryStores } from './temporary-data-directory.js';

/** This process's open descriptors on event logs (Linux: /proc/self/fd). */
async function openEventLogs(): Promise<string[]> {
  const targets = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target.includes('compactor-embedded-') && target.endsWith('.log'));
}

function message(eventId: string) {
  return {
    eventId,
    type: 'message.appended' as const,
    message: {
      id: `m-${eventId}`,
      role: 'user' as const,
      content: [{ type: 'text' as const, text: eventId }],
    },
  };
}

describe.skipIf(process.platform !== 'linux')('event logs kept open while in use', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('holds a descriptor per thread only while it is busy, closing idle ones', async () => {
    const { stores, cleanup } = await openTemporaryStores();
    cleanups.push(cleanup);
    const threads = Array.from({ length: 40 }, (_, index) => `t-${index}`);
    await Promise.all(
      threads.map((threadId) =>
        stores.events.append('tenant-a', threadId, [
          { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
          message(`${threadId}-1`),
        ]),
      ),
    );
    // Just used: each thread's log is still open (no open and close per append).
    expect((await openEventLogs()).length).toBe(threads.length);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await openEventLogs()).toEqual([]);
    // Reopened on demand: reads and appends go on as before.
    await stores.events.append('tenant-a', 't-0', [message('t-0-2')]);
    expect((await stores.events.readAll('tenant-a', 't-0')).map((event) => event.seq)).toEqual([1, 2, 3]);
  });

  it('closes every log when the store closes', async () => {
    const { stores, cleanup } = await openTemporaryStores();
    await stores.events.append('tenant-a', 'one', [
      { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
    ]);
    expect((await openEventLogs()).length).toBe(1);
    await cleanup();
    expect(await openEventLogs()).toEqual([]);
  });
});
