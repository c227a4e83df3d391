import { resolve } from 'node:path';
import {
  type Clock,
  CompactorError,
  type Logger,
  noopLogger,
  systemClock,
  ValidationError,
} from '@compactor/core';
import { MIN_LEASE_MS } from './files/directory-lease.js';

/**
 * `exclusive`: one process owns the directory (the `LOCK` file) and trusts its in-memory indexes.
 * `shared`: several processes on one host use the directory at once; writes take a cross-process
 * lock per thread and every read first catches up with what other processes appended.
 */
export type EmbeddedSharing = 'exclusive' | 'shared';

/** The sharing modes, for validation and help texts. */
export const EMBEDDED_SHARING_MODES: readonly EmbeddedSharing[] = ['exclusive', 'shared'];

/** How the embedded stores open their data directory. */
export interface EmbeddedStoreOptions {
  /** The data directory. @defaultValue `'./.compactor'` */
  dataDir?: string;
  /** `exclusive` (fastest) or `shared` (several processes, one host). @defaultValue `'exclusive'` */
  sharing?: EmbeddedSharing;
  /**
   * Shared mode: a cross-process lock whose holder has not refreshed it for this long is taken
   * over (its process is presumed dead). At least 2,000 ms.
   * @defaultValue 10,000
   */
  lockStaleMs?: number;
  /**
   * The data directory lease: every opener renews its lease file every quarter of this; a holder
   * that has not renewed for this long is presumed dead (killed, or its container gone) and its
   * lease is taken over. A process of this host that is gone is taken over at once. At least
   * 1,000 ms.
   * @defaultValue 10,000
   */
  leaseMs?: number;
  /**
   * Bytes of in-memory state each store may keep for threads it is not using right now (event
   * indexes, plan histories, open logs): least recently used threads are dropped past it and
   * rebuilt from disk when asked for again. The absence of a thread is never kept. At least 64 KiB.
   * @defaultValue 32 MiB per store
   */
  cacheBytes?: number;
  /** @defaultValue `systemClock` */
  clock?: Clock;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
}

/** {@link EmbeddedStoreOptions.dataDir}'s default. */
export const DEFAULT_DATA_DIR = './.compactor';
/** {@link EmbeddedStoreOptions.lockStaleMs}'s default. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
/** {@link EmbeddedStoreOptions.leaseMs}'s default. */
export const DEFAULT_LEASE_MS = 10_000;
/** {@link EmbeddedStoreOptions.cacheBytes}'s default, per store. */
export const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;
const MIN_CACHE_BYTES = 64 * 1024;

export function resolveStoreOptions(options: EmbeddedStoreOptions): Required<EmbeddedStoreOptions> {
  const sharing = options.sharing ?? 'exclusive';
  if (!EMBEDDED_SHARING_MODES.includes(sharing)) {
    throw new ValidationError(`sharing must be one of ${EMBEDDED_SHARING_MODES.join(', ')}`, [
      { path: 'sharing', message: 'invalid' },
    ]);
  }
  return {
    dataDir: resolve(options.dataDir ?? DEFAULT_DATA_DIR),
    sharing,
    lockStaleMs: Math.max(options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS, 2_000),
    leaseMs: Math.max(options.leaseMs ?? DEFAULT_LEASE_MS, MIN_LEASE_MS),
    cacheBytes: Math.max(options.cacheBytes ?? DEFAULT_CACHE_BYTES, MIN_CACHE_BYTES),
    clock: options.clock ?? systemClock,
    logger: options.logger ?? noopLogger,
  };
}

export function storeClosedError(store: string): CompactorError {
  return new CompactorError('unavailable', `${store} is closed`);
}
