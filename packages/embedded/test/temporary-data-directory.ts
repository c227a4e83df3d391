import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, noopLogger } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedSharing, type EmbeddedStores } from '../src/index.js';

/** A fresh data directory under the OS temp dir, removed by `cleanup`. */
export async function makeTemporaryDirectory(): Promise<{ dataDir: string; remove: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-embedded-'));
  return { dataDir, remove: () => rm(dataDir, { recursive: true, force: true }) };
}

/** Open every store over a fresh temp directory; `cleanup` closes them and deletes it. */
export async function openTemporaryStores(
  clock?: Clock,
  sharing: EmbeddedSharing = 'exclusive',
): Promise<{ stores: EmbeddedStores; cleanup: () => Promise<void> }> {
  const { dataDir, remove } = await makeTemporaryDirectory();
  const stores = await createEmbeddedStores({
    dataDir,
    sharing,
    logger: noopLogger,
    ...(clock ? { clock } : {}),
  });
  return {
    stores,
    cleanup: async () => {
      await stores.close();
      await remove();
    },
  };
}
