import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { noopLogger } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

/** A pid that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('the data directory', () => {
  let dataDir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
  });

  afterEach(async () => {
    await remove();
  });

  it('is opened by one store set at a time, and free again after close', async () => {
    const first = await createEmbeddedStores({ dataDir, logger: noopLogger });
    await expect(createEmbeddedStores({ dataDir, logger: noopLogger })).rejects.toMatchObject({
      code: 'unavailable',
    });
    await first.close();
    const second = await createEmbeddedStores({ dataDir, logger: noopLogger });
    await second.close();
  });

  it('takes over, after one lease, a lock whose live process does not renew it', async () => {
    // A running pid is not proof of an owner (a pid reused after a restart, a process that hung):
    // only a renewed lease is (directory-lease.int.test.ts has the live owner that keeps it).
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(
        join(dataDir, 'LOCK'),
        JSON.stringify({ pid: sleeper.pid, hostname: hostname(), since: 'x' }),
      );
      const started = Date.now();
      const stores = await createEmbeddedStores({ dataDir, leaseMs: 1_000, logger: noopLogger });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      await stores.close();
    } finally {
      sleeper.kill();
    }
  });

  it('takes over a lock left by a process that is gone', async () => {
    await writeFile(
      join(dataDir, 'LOCK'),
      JSON.stringify({ pid: await deadPid(), hostname: hostname(), since: 'x' }),
    );
    const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    await stores.close();
  });

  it('refuses a directory written in another format version', async () => {
    await writeFile(
      join(dataDir, 'FORMAT.json'),
      JSON.stringify({ format: 'compactor-embedded', version: 99 }),
    );
    await expect(createEmbeddedStores({ dataDir, logger: noopLogger })).rejects.toMatchObject({
      code: 'unavailable',
    });
    await writeFile(
      join(dataDir, 'FORMAT.json'),
      JSON.stringify({ format: 'compactor-embedded', version: 1 }),
    );
    const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    await stores.close();
  });

  it('refuses calls after close', async () => {
    const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    await stores.close();
    await expect(stores.events.getThread('t', 'x')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(stores.plans.getCurrent('t', 'x')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(stores.lifecycle.list('t', 'x')).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('lets in-flight appends finish before close resolves', async () => {
    const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    await stores.events.append('t', 'x', [
      { eventId: 'c', type: 'thread.created', model: 'm', contextWindow: 10 },
    ]);
    const appends = Array.from({ length: 20 }, (_, index) =>
      stores.events.append('t', 'x', [
        { eventId: `e-${index}`, type: 'lifecycle', name: 'compaction_completed', details: {} },
      ]),
    );
    await stores.close();
    await Promise.all(appends);
    const reopened = await createEmbeddedStores({ dataDir, logger: noopLogger });
    expect((await reopened.events.getThread('t', 'x'))?.version).toBe(21);
    await reopened.close();
  });
});
