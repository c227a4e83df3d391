import { appendFile, open, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CompactorError, type EventInput, noopLogger } from '@compactor/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, DataLayout, type EmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const TENANT = 'tenant-crash';
const THREAD = 'thread-crash';

function created(): EventInput {
  return { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 };
}

function message(index: number, text = `message ${index} — ünïcode 🌍`): EventInput {
  return {
    eventId: `e-${index}`,
    type: 'message.appended',
    tokens: 5,
    message: { id: `m-${index}`, role: 'user', content: [{ type: 'text', text }] },
  };
}

describe('crash recovery of the event log', () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  let stores: EmbeddedStores | undefined;
  let logPath: string;
  /** File size after each batch: where each whole batch ends. */
  let batchEnds: number[];
  /** Events in the thread after each batch. */
  let versions: number[];

  async function open_(): Promise<EmbeddedStores> {
    stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    return stores;
  }

  async function closeStores(): Promise<void> {
    await stores?.close();
    stores = undefined;
  }

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
    const layout = new DataLayout(dataDir);
    logPath = layout.eventLog(layout.tenantSegment(TENANT), layout.threadSegment(THREAD));
    const { events } = await open_();
    batchEnds = [];
    versions = [];
    const batches: EventInput[][] = [
      [created(), message(1)],
      [message(2)],
      [message(3), message(4), message(5)],
      [message(6, 'x'.repeat(50_000))],
      [message(7), message(8), message(9)],
    ];
    for (const batch of batches) {
      const result = await events.append(TENANT, THREAD, batch);
      versions.push(result.version);
      batchEnds.push((await stat(logPath)).size);
    }
    await closeStores();
  });

  afterEach(async () => {
    await closeStores();
    await remove();
  });

  async function expectIntactUpTo(version: number): Promise<void> {
    const { events } = await open_();
    const all = await events.readAll(TENANT, THREAD);
    expect(all.map((event) => event.seq)).toEqual(Array.from({ length: version }, (_, index) => index + 1));
    expect(all.slice(1).map((event) => event.eventId)).toEqual(
      Array.from({ length: version - 1 }, (_, index) => `e-${index + 1}`),
    );
    const appended = await events.append(TENANT, THREAD, [message(100), message(101)], {
      expectedVersion: version,
    });
    expect(appended.events.map((event) => event.seq)).toEqual([version + 1, version + 2]);
    expect((await events.getThread(TENANT, THREAD))?.messageCount).toBe(version - 1 + 2);
    await closeStores();
    const reopened = await open_();
    expect((await reopened.events.readAll(TENANT, THREAD)).length).toBe(version + 2);
  }

  it('cuts a record torn in the middle and keeps every batch before it', async () => {
    await truncate(logPath, batchEnds[4]! - 17);
    await expectIntactUpTo(versions[3]!);
    expect((await stat(logPath)).size).toBeGreaterThan(batchEnds[3]!); // the two new events
  });

  it('drops a whole batch when only its first records made it to disk', async () => {
    const content = await readFile(logPath);
    // The last batch has three records; keep the first one whole (up to its newline).
    const firstNewline = content.indexOf(0x0a, batchEnds[3]!);
    await truncate(logPath, firstNewline + 1);
    await expectIntactUpTo(versions[3]!);
  });

  it('cuts garbage appended after the last record', async () => {
    await appendFile(
      logPath,
      Buffer.from('0000beef 0 {"seq":10,"eventId":"forged"}\n\u0000\u0001garbage without newline'),
    );
    await expectIntactUpTo(versions[4]!);
  });

  it('cuts a half-written line even when it looks like JSON', async () => {
    await appendFile(logPath, '1a2b3c4d 0 {"seq":10,"eventId":"e-10","type":"message.appended"');
    await expectIntactUpTo(versions[4]!);
  });

  it('refuses, instead of cutting, when damage is followed by intact records', async () => {
    const handle = await open(logPath, 'r+');
    await handle.write(Buffer.from('X'), 0, 1, batchEnds[1]! + 20);
    await handle.close();
    const sizeBefore = (await stat(logPath)).size;
    const { events } = await open_();
    let caught: unknown;
    try {
      await events.readAll(TENANT, THREAD);
    } catch (error) {
      caught = error;
    }
    expect(CompactorError.hasCode(caught, 'integrity')).toBe(true);
    expect((await stat(logPath)).size).toBe(sizeBefore);
  });

  it('recovers exactly the whole batches before any cut point', async () => {
    const pristineLog = await readFile(logPath);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: pristineLog.length }), async (cut) => {
        await writeFile(logPath, pristineLog.subarray(0, cut));
        const wholeBatches = batchEnds.filter((end) => end <= cut).length;
        const expectedVersion = wholeBatches === 0 ? 0 : versions[wholeBatches - 1]!;
        const { events } = await open_();
        try {
          const metadata = await events.getThread(TENANT, THREAD);
          expect(metadata?.version ?? 0).toBe(expectedVersion);
          expect((await stat(logPath)).size).toBe(wholeBatches === 0 ? 0 : batchEnds[wholeBatches - 1]);
        } finally {
          await closeStores();
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('crash recovery of the other stores', () => {
  let dataDir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
  });

  afterEach(async () => {
    await remove();
  });

  it('cuts a torn lifecycle record and keeps the rest', async () => {
    let stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    const layout = new DataLayout(dataDir);
    for (let index = 0; index < 3; index += 1) {
      await stores.lifecycle.append({
        tenantId: TENANT,
        threadId: THREAD,
        name: 'compaction_completed',
        at: `2025-01-01T00:00:0${index}.000Z`,
        tokensFreed: index,
      });
    }
    await stores.close();
    const path = layout.lifecycleLog(layout.tenantSegment(TENANT), layout.threadSegment(THREAD));
    await truncate(path, (await stat(path)).size - 5);
    stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    expect((await stores.lifecycle.list(TENANT, THREAD)).map((event) => event.tokensFreed)).toEqual([0, 1]);
    await stores.lifecycle.append({
      tenantId: TENANT,
      threadId: THREAD,
      name: 'compaction_failed',
      at: 'now',
    });
    expect((await stores.lifecycle.list(TENANT, THREAD)).map((event) => event.name).at(-1)).toBe(
      'compaction_failed',
    );
    await stores.close();
  });

  it('ignores a plan version whose write was cut before its rename', async () => {
    let stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    const plan = {
      formatVersion: 'v1' as const,
      threadId: THREAD,
      version: 0,
      basedOnSeq: 3,
      createdAt: '2025-01-01T00:00:00.000Z',
      policyVersion: '1',
      externalizations: [],
      summarizations: [],
      clearings: [],
      drops: [],
      abridgements: [],
      originalTokenCount: 0,
      compactedTokenCount: 0,
    };
    await stores.plans.commit(TENANT, THREAD, plan, 0);
    await stores.close();
    const layout = new DataLayout(dataDir);
    const directory = layout.planDirectory(layout.tenantSegment(TENANT), layout.threadSegment(THREAD));
    await writeFile(join(directory, '0000000002.json.123.abcdef.tmp'), '{"version":2,"plan":{"thr');
    stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    expect((await stores.plans.getCurrent(TENANT, THREAD)).version).toBe(1);
    expect(await stores.plans.commit(TENANT, THREAD, { ...plan, basedOnSeq: 9 }, 1)).toEqual({
      committed: true,
      version: 2,
    });
    expect((await readdir(directory)).sort()).toEqual(['0000000001.json', '0000000002.json']);
    await stores.close();
  });
});
