import { mkdir, readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { compactionPlanSchema, noopLogger } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, type EmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const HOSTILE_IDS = [
  '..',
  '.',
  '../../escape',
  '/etc/passwd',
  'a/../../b',
  '..\\..\\windows',
  'nul\u0000byte',
  'Thread',
  'thread',
  '~41',
  'A',
  'ünïcode-日本語',
  'x'.repeat(400),
  `${'y'.repeat(119)}Z`,
];

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.map((entry) => join(entry.parentPath, entry.name));
}

describe('ids cannot escape the data directory', () => {
  let parent: string;
  let dataDir: string;
  let remove: () => Promise<void>;
  let stores: EmbeddedStores;

  beforeEach(async () => {
    // The data directory sits four levels inside a temp parent, so an escape would land in the parent.
    ({ dataDir: parent, remove } = await makeTemporaryDirectory());
    dataDir = join(parent, 'a', 'b', 'c', 'data');
    await mkdir(dataDir, { recursive: true });
    stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
  });

  afterEach(async () => {
    await stores.close();
    await remove();
  });

  /** Every file under the parent must be under the data directory. */
  async function expectNothingOutside(): Promise<void> {
    const root = resolve(dataDir);
    for (const file of await listFiles(parent)) {
      if (['a', 'a/b', 'a/b/c', 'a/b/c/data'].includes(relative(parent, file))) continue;
      expect(relative(root, file).startsWith('..'), file).toBe(false);
      expect(
        relative(root, file)
          .split('/')
          .every((part) => part.length <= 130),
      ).toBe(true);
    }
  }

  it('stores hostile tenant and thread ids as distinct threads, all inside the directory', async () => {
    for (const tenantId of HOSTILE_IDS) {
      for (const threadId of HOSTILE_IDS) {
        await stores.events.append(tenantId, threadId, [
          { eventId: 'c', type: 'thread.created', model: `${tenantId}|${threadId}`, contextWindow: 1000 },
        ]);
      }
    }
    for (const tenantId of HOSTILE_IDS) {
      const listed = await stores.events.listThreads(tenantId, { limit: 1000 });
      expect(listed.threads.map((thread) => thread.threadId).sort()).toEqual([...HOSTILE_IDS].sort());
      for (const thread of listed.threads) expect(thread.model).toBe(`${tenantId}|${thread.threadId}`);
    }
    await expectNothingOutside();
  });

  it('rejects ids that are not well-formed Unicode', async () => {
    await expect(
      stores.events.append('tenant', 'lone\uD800', [
        { eventId: 'c', type: 'thread.created', model: 'm', contextWindow: 1 },
      ]),
    ).rejects.toMatchObject({ code: 'validation' });
  });

  it('keeps the other stores inside the directory too', async () => {
    for (const id of HOSTILE_IDS) {
      const plan = compactionPlanSchema.parse({ threadId: id, version: 0, basedOnSeq: 0, createdAt: 'now' });
      await stores.plans.commit(id, id, plan, 0);
      await stores.lifecycle.append({ tenantId: id, threadId: id, name: 'compaction_completed', at: 'now' });
      await stores.summaries.set(
        id,
        { contentHash: id, schemaVersion: id, policyVersion: id, modelId: id, promptVersion: id },
        { summary: {} as never, summaryTokenCount: 0, costUsd: 0, createdAt: 'now' },
      );
      const artifact = await stores.artifacts.put(id, { tenantId: id, threadId: id, sensitivity: 'public' });
      await stores.artifacts.retrieve(artifact.artifactId, {
        tenantId: id,
        requesterId: id,
        permissions: [],
      });
      await stores.events.append(id, id, [
        { eventId: 'c', type: 'thread.created', model: 'm', contextWindow: 1 },
      ]);
      await stores.events.setCompactionPending(id, id, true);
    }
    for (const id of HOSTILE_IDS) {
      expect((await stores.plans.getCurrent(id, id)).plan?.threadId).toBe(id);
      expect((await stores.lifecycle.list(id, id)).length).toBe(1);
      expect((await stores.artifacts.listAudit(id)).length).toBe(1);
    }
    expect((await stores.events.listCompactionPending(1000)).length).toBe(HOSTILE_IDS.length);
    await expectNothingOutside();
  });
});
