import { dirname, join } from 'node:path';
import { CompactorError, type Logger } from '@compactor/core';
import { lock as lockFile } from 'proper-lockfile';
import { ensureDirectory } from '../files/durable-files.js';
import type { EmbeddedSharing } from '../store-options.js';
import { KeyedMutex } from './keyed-mutex.js';

/** The longest pause between two attempts at a lock another process holds. */
const MAX_RETRY_DELAY_MS = 25;

export interface StoreLocksOptions {
  /** The data directory; shared-mode lock files live under `<root>/locks/`. */
  root: string;
  sharing: EmbeddedSharing;
  staleMs: number;
  logger: Logger;
}

/**
 * Per-key mutual exclusion for a store's writes. Always an in-process async lock (callers of this
 * process queue without touching the disk); in shared mode, inside it, a cross-process lock file
 * (`proper-lockfile`: an atomic `mkdir` whose mtime the holder refreshes, so a lock left by a
 * killed process is taken over once it is `staleMs` old).
 *
 * `key` must be made of path-safe segments (encoded ids), `/`-separated.
 */
export class StoreLocks {
  private readonly local = new KeyedMutex();
  private readonly createdDirectories = new Set<string>();

  constructor(private readonly options: StoreLocksOptions) {}

  get shared(): boolean {
    return this.options.sharing === 'shared';
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    if (!this.shared) return this.local.run(key, task);
    return this.local.run(key, () => this.runAcrossProcesses(key, task));
  }

  drain(): Promise<void> {
    return this.local.drain();
  }

  private async runAcrossProcesses<T>(key: string, task: () => Promise<T>): Promise<T> {
    const target = join(this.options.root, 'locks', key);
    const directory = dirname(target);
    if (!this.createdDirectories.has(directory)) {
      await ensureDirectory(directory);
      this.createdDirectories.add(directory);
    }
    const { staleMs, logger } = this.options;
    let release: () => Promise<void>;
    try {
      release = await lockFile(target, {
        realpath: false,
        stale: staleMs,
        // Keep trying for twice the stale time: long enough to outwait a dead holder.
        retries: {
          retries: Math.ceil((2 * staleMs) / MAX_RETRY_DELAY_MS) + 40,
          factor: 1.5,
          minTimeout: 1,
          maxTimeout: MAX_RETRY_DELAY_MS,
          randomize: true,
        },
        onCompromised: (error) => {
          // Our refresh came too late and another process may have taken the lock over: the
          // write in progress is no longer protected. Rare (an event loop blocked for staleMs).
          logger.error({ lock: target, err: error }, 'a shared-mode store lock was compromised');
        },
      });
    } catch (error) {
      throw new CompactorError('unavailable', `could not take the store lock ${target}`, {
        cause: error,
        isRetryable: true,
      });
    }
    try {
      return await task();
    } finally {
      await release().catch((error: unknown) => {
        logger.warn({ lock: target, err: error }, 'could not release a shared-mode store lock');
      });
    }
  }
}
