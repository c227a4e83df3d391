import { CompactorError, type EventInput, noopLogger } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, type EmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const TENANT = 'tenant-busy';

function created(): EventInput {
  return { eventId: 'created', type: 'thread.created', model: 'm', contextWindow: 100_000 };
}

function message(id: string, text: string): EventInput {
  return {
    eventId: id,
    type: 'message.appended',
    tokens: 1,
    message: { id: `m-${id}`, role: 'user', content: [{ type: 'text', text }] },
  };
}

describe('one process, many concurrent requests', () => {
  let remove: () => Promise<void>;
  let stores: EmbeddedStores;

  beforeEach(async () => {
    const directory = await makeTemporaryDirectory();
    remove = directory.remove;
    stores = await createEmbeddedStores({ dataDir: directory.dataDir, logger: noopLogger });
  });

  afterEach(async () => {
    await stores.close();
    await remove();
  });

  it('lets optimistic writers on many threads all land exactly once, one winner per version', async () => {
    const threads = Array.from({ length: 8 }, (_, index) => `thread-${index}`);
    await Promise.all(threads.map((thread) => stores.events.append(TENANT, thread, [created()])));
    const writersPerThread = 6;
    const appendsPerWriter = 5;
    const conflicts: number[] = [];
    // Each writer reads the version, appends with it, and retries on a ConcurrencyError.
    async function writer(thread: string, writerIndex: number): Promise<void> {
      for (let round = 0; round < appendsPerWriter; round += 1) {
        for (;;) {
          const version = (await stores.events.getThread(TENANT, thread))!.version;
          try {
            await stores.events.append(
              TENANT,
              thread,
              [message(`${writerIndex}-${round}`, `w${writerIndex} r${round}`)],
              {
                expectedVersion: version,
              },
            );
            break;
          } catch (error) {
            if (!CompactorError.hasCode(error, 'concurrency')) throw error;
            conflicts.push(version);
          }
        }
      }
    }
    await Promise.all(
      threads.flatMap((thread) =>
        Array.from({ length: writersPerThread }, (_, index) => writer(thread, index)),
      ),
    );
    expect(conflicts.length).toBeGreaterThan(0); // the race really happened
    for (const thread of threads) {
      const events = await stores.events.readAll(TENANT, thread);
      expect(events.map((event) => event.seq)).toEqual(
        Array.from({ length: 1 + writersPerThread * appendsPerWriter }, (_, index) => index + 1),
      );
      expect(new Set(events.map((event) => event.eventId)).size).toBe(events.length);
    }
  });

  it('never shows a reader half a batch while writers append', async () => {
    await stores.events.append(TENANT, 'thread', [created()]);
    let writing = true;
    const batchSize = 10;
    const writers = Promise.all(
      Array.from({ length: 4 }, async (_, writerIndex) => {
        for (let round = 0; round < 10; round += 1) {
          await stores.events.append(
            TENANT,
            'thread',
            Array.from({ length: batchSize }, (_, index) =>
              message(`${writerIndex}-${round}-${index}`, 'x'.repeat(index * 100)),
            ),
          );
        }
      }),
    ).finally(() => {
      writing = false;
    });
    let observations = 0;
    while (writing) {
      const events = await stores.events.readAll(TENANT, 'thread');
      expect((events.length - 1) % batchSize).toBe(0);
      expect(events.every((event, index) => event.seq === index + 1)).toBe(true);
      observations += 1;
    }
    await writers;
    expect(observations).toBeGreaterThan(1);
    expect((await stores.events.getThread(TENANT, 'thread'))?.version).toBe(1 + 4 * 10 * batchSize);
  });

  it('keeps plans, artifacts and lifecycle logs consistent under concurrent use', async () => {
    const puts = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        stores.artifacts.put(`content ${index % 10}`, {
          tenantId: TENANT,
          threadId: 't',
          sensitivity: 'internal',
        }),
      ),
    );
    expect(new Set(puts.map((metadata) => metadata.artifactId)).size).toBe(10);
    const reads = await Promise.all(
      puts.map((metadata) =>
        stores.artifacts.retrieve(metadata.artifactId, {
          tenantId: TENANT,
          requesterId: 'r',
          permissions: [],
        }),
      ),
    );
    expect(reads.every((result) => result.status === 'ok')).toBe(true);
    expect((await stores.artifacts.listAudit(TENANT)).length).toBe(40);
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        stores.lifecycle.append({
          tenantId: TENANT,
          threadId: `t-${index % 4}`,
          name: 'compaction_completed',
          at: `${index}`,
        }),
      ),
    );
    for (let thread = 0; thread < 4; thread += 1) {
      expect((await stores.lifecycle.list(TENANT, `t-${thread}`)).length).toBe(10);
    }
  });
});
