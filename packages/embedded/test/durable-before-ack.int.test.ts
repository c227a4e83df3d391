import { fstatSync, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { type EventInput, noopLogger, type StoredEvent } from '@compactor/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedEventStore } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

/**
 * Appends to one thread are written under its lock and synced outside it, sharing syncs
 * (ADR-0130). These tests watch every `fdatasync` the process makes: a spy on the file handle's
 * `datasync` reads which event ids are in the file when a sync begins and marks them durable once
 * it returns. An append acknowledged, or an event shown to a reader, before a sync that began
 * after its bytes were written had returned, fails them — whatever the timing.
 */

/** Event ids whose bytes were in their file when a completed `fdatasync` of it began. */
const durable = new Set<string>();
/** Fail the `datasync` calls this says to, before they reach the kernel (an EIO from the disk). */
let failSync: (eventIds: readonly string[]) => boolean = () => false;
let restore: (() => void) | undefined;

function eventIdsInFile(fd: number): string[] {
  const size = fstatSync(fd).size;
  const bytes = Buffer.alloc(size);
  let read = 0;
  while (read < size) read += readSync(fd, bytes, read, size - read, read);
  return [...bytes.toString('utf8').matchAll(/"eventId":"([^"]+)"/g)].map((match) => match[1]!);
}

async function spyOnDatasync(directory: string): Promise<void> {
  const probe: FileHandle = await open(join(directory, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { datasync: (this: FileHandle) => Promise<void> };
  await probe.close();
  const real = prototype.datasync;
  prototype.datasync = async function datasync(this: FileHandle): Promise<void> {
    const ids = eventIdsInFile(this.fd);
    // A short, varying pause widens every window in which an early answer could slip out.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    if (failSync(ids)) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    await real.call(this);
    for (const id of ids) durable.add(id);
  };
  restore = () => {
    prototype.datasync = real;
  };
}

function message(id: string): EventInput {
  return {
    eventId: id,
    type: 'message.appended',
    message: { id: `m-${id}`, role: 'user', content: [{ type: 'text', text: `text of ${id}` }] },
  } as EventInput;
}

const created = (id: string): EventInput =>
  ({ eventId: id, type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 }) as EventInput;

describe('appends pipelined per thread', () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  const stores: EmbeddedEventStore[] = [];

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
    durable.clear();
    failSync = () => false;
    await spyOnDatasync(dataDir);
  });
  afterEach(async () => {
    restore?.();
    for (const store of stores.splice(0)) await store.close();
    await remove();
  });

  function openStore(): EmbeddedEventStore {
    const store = new EmbeddedEventStore({ dataDir, logger: noopLogger });
    stores.push(store);
    return store;
  }

  it('acknowledges an append, a retry or a read only after a sync covering it returned', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            thread: fc.nat({ max: 3 }),
            batch: fc.integer({ min: 1, max: 3 }),
            retry: fc.boolean(),
            read: fc.boolean(),
          }),
          { minLength: 4, maxLength: 40 },
        ),
        fc.string({ minLength: 4, maxLength: 4, unit: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f') }),
        async (operations, run) => {
          const store = openStore();
          const threads = [0, 1, 2, 3].map((index) => `t-${run}-${index}`);
          for (const threadId of threads) await store.append('tenant', threadId, [created(`c-${threadId}`)]);
          const violations: string[] = [];
          const acknowledged: string[][] = [];
          await Promise.all(
            operations.flatMap(({ thread, batch, retry, read }, index) => {
              const threadId = threads[thread]!;
              const events = Array.from({ length: batch }, (_, part) => message(`${run}-${index}-${part}`));
              const check = (ids: string[], what: string) => {
                for (const id of ids)
                  if (!durable.has(id)) violations.push(`${what} ${id} before it was durable`);
              };
              const appends = [
                store.append('tenant', threadId, events).then((result) => {
                  const ids = result.events.map((event) => event.eventId);
                  check(ids, 'acknowledged');
                  acknowledged.push(ids);
                }),
              ];
              // The same batch again, racing the first attempt: an idempotent retry.
              if (retry) {
                appends.push(
                  store.append('tenant', threadId, events).then((result) => {
                    check(
                      result.events.map((event) => event.eventId),
                      'acknowledged a retry of',
                    );
                  }),
                );
              }
              if (read) {
                appends.push(
                  store.read('tenant', threadId).then((page) => {
                    check(
                      page.events.map((event) => event.eventId),
                      'showed a reader',
                    );
                  }),
                );
              }
              return appends;
            }),
          );
          expect(violations).toEqual([]);
          // Every thread's seqs are contiguous and each acknowledged event is there once.
          for (const threadId of threads) {
            const events = await store.readAll('tenant', threadId);
            expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
            expect(new Set(events.map((event) => event.eventId)).size).toBe(events.length);
          }
          const stored = new Set(
            (await Promise.all(threads.map((threadId) => store.readAll('tenant', threadId))))
              .flat()
              .map((event) => event.eventId),
          );
          for (const ids of acknowledged) for (const id of ids) expect(stored.has(id)).toBe(true);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('shares one sync among appends queued on one thread', async () => {
    const store = openStore();
    await store.append('tenant', 'one', [created('c')]);
    const before = store.groupCommit.fileSyncs;
    await Promise.all(
      Array.from({ length: 32 }, (_, index) => store.append('tenant', 'one', [message(`e${index}`)])),
    );
    // Serialized appends would sync 32 times; queued behind one sync, they share the next ones.
    expect(store.groupCommit.fileSyncs - before).toBeLessThan(32);
    expect((await store.readAll('tenant', 'one')).map((event) => event.seq)).toEqual(
      Array.from({ length: 33 }, (_, index) => index + 1),
    );
  });

  it('cuts a batch whose sync failed off the log with every batch written after it, then carries on', async () => {
    const store = openStore();
    await store.append('tenant', 'one', [created('c')]);
    await store.append('tenant', 'one', [message('before')]);
    // The first sync that would cover `doomed` fails; later syncs succeed.
    let failed = false;
    failSync = (ids) => {
      if (failed || !ids.includes('doomed')) return false;
      failed = true;
      return true;
    };
    const outcomes = await Promise.allSettled(
      ['doomed', 'behind-1', 'behind-2'].map((id) => store.append('tenant', 'one', [message(id)])),
    );
    expect(failed).toBe(true);
    expect(outcomes[0]!.status).toBe('rejected');
    // Whatever was acknowledged is durable and readable; nothing rejected is in the log.
    const acknowledged = outcomes.flatMap((outcome) =>
      outcome.status === 'fulfilled' ? outcome.value.events.map((event) => event.eventId) : [],
    );
    for (const id of acknowledged) expect(durable.has(id)).toBe(true);
    const afterFailure = (await store.readAll('tenant', 'one')).map((event: StoredEvent) => event.eventId);
    expect(afterFailure).toEqual(['c', 'before', ...acknowledged]);
    // The thread carries on with contiguous seqs, and a retry of a rejected event now lands.
    await store.append('tenant', 'one', [message('doomed')]);
    await store.append('tenant', 'one', [message('after')]);
    await store.close();
    const reopened = openStore();
    const events = await reopened.readAll('tenant', 'one');
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => event.eventId)).toEqual(['c', 'before', ...acknowledged, 'doomed', 'after']);
  });
});
