import type { Clock, Logger } from '@compactor/core';
import { StoreLocks } from './concurrency/store-locks.js';
import { DataLayout } from './paths/data-layout.js';
import { type EmbeddedStoreOptions, resolveStoreOptions } from './store-options.js';

/** What every embedded store needs from its options: where files go, the clock, logging and locks. */
export interface StoreContext {
  layout: DataLayout;
  clock: Clock;
  logger: Logger;
  /** Several processes use the directory (shared mode): reads catch up, writes lock across processes. */
  shared: boolean;
  locks: StoreLocks;
  /** The most bytes of idle per-thread state the store keeps in memory. */
  cacheBytes: number;
}

export function createStoreContext(options: EmbeddedStoreOptions): StoreContext {
  const resolved = resolveStoreOptions(options);
  return {
    layout: new DataLayout(resolved.dataDir),
    clock: resolved.clock,
    logger: resolved.logger,
    shared: resolved.sharing === 'shared',
    cacheBytes: resolved.cacheBytes,
    locks: new StoreLocks({
      root: resolved.dataDir,
      sharing: resolved.sharing,
      staleMs: resolved.lockStaleMs,
      logger: resolved.logger,
    }),
  };
}
