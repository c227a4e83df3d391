import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CompactorError, type Logger } from '@compactor/core';
import { lock as lockFile } from 'proper-lockfile';
import type { EmbeddedSharing } from '../store-options.js';
import { isLeaseLive, LeaseKeeper, type LeaseRecord, newLeaseRecord } from './directory-lease.js';
import {
  ensureDirectory,
  isMissingFileError,
  removeFileDurably,
  writeFileAtomically,
} from './durable-files.js';

/** Data directories this process holds exclusively (a second open here would fork the indexes). */
const heldHere = new Set<string>();

export interface DataDirectoryPaths {
  /** The exclusive owner's lease file. */
  lockFile: string;
  /** Where each shared-mode opener keeps a lease file naming itself. */
  sharersDirectory: string;
}

export interface DataDirectoryLeaseOptions {
  sharing: EmbeddedSharing;
  /** How long a holder that stopped renewing keeps the directory (see directory-lease.ts). */
  leaseMs: number;
  logger: Logger;
  /** Called if this process loses its lease (it stalled for a whole lease and was taken over). */
  onLost: () => void;
}

/**
 * Who may open a data directory. Exclusive: one process, named by the `LOCK` lease, because its
 * stores keep in-memory indexes that a second writer would silently contradict. Shared: any
 * number of shared-mode openers (each keeps a lease in `SHARERS/`), never beside an exclusive
 * one. Every holder renews its lease; a lease that is not renewed for `leaseMs` (its holder was
 * killed, on this host or another: a container replaced on a shared volume) is taken over, and a
 * lease of a process of this host that is gone is taken over at once (ADR-0052).
 */
export class DataDirectoryLock {
  private constructor(
    private readonly directory: string,
    private readonly keeper: LeaseKeeper,
    private readonly exclusive: boolean,
  ) {}

  static async acquire(
    directory: string,
    paths: DataDirectoryPaths,
    options: DataDirectoryLeaseOptions,
  ): Promise<DataDirectoryLock> {
    const exclusive = options.sharing === 'exclusive';
    if (heldHere.has(directory)) {
      throw new CompactorError('unavailable', `data directory ${directory} is already open in this process`);
    }
    if (exclusive) heldHere.add(directory);
    try {
      await ensureDirectory(directory);
      // Opens check and then write: one at a time, or an exclusive and a shared open could both pass.
      // Watching a silent lease takes up to a lease, so queued openers wait that long and more.
      const releaseOpening = await lockFile(join(directory, 'OPENING'), {
        realpath: false,
        stale: 2_000,
        retries: { retries: Math.ceil((3 * options.leaseMs) / 50) + 40, minTimeout: 5, maxTimeout: 50 },
      });
      try {
        await refuseLiveExclusiveOwner(directory, paths.lockFile, options.leaseMs);
        const me = newLeaseRecord(options.leaseMs);
        if (exclusive) {
          await refuseLiveSharers(directory, paths.sharersDirectory, options.leaseMs);
          return DataDirectoryLock.hold(directory, paths.lockFile, me, options, true);
        }
        const ownFile = join(
          paths.sharersDirectory,
          `${hostname()}.${process.pid}.${randomBytes(4).toString('hex')}.json`,
        );
        return DataDirectoryLock.hold(directory, ownFile, me, options, false);
      } finally {
        await releaseOpening();
      }
    } catch (error) {
      if (exclusive) heldHere.delete(directory);
      throw error;
    }
  }

  private static async hold(
    directory: string,
    file: string,
    record: LeaseRecord,
    options: DataDirectoryLeaseOptions,
    exclusive: boolean,
  ): Promise<DataDirectoryLock> {
    await writeFileAtomically(file, JSON.stringify(record));
    const keeper = new LeaseKeeper(file, record, options.logger, options.onLost);
    return new DataDirectoryLock(directory, keeper, exclusive);
  }

  async release(): Promise<void> {
    await this.keeper.release();
    if (this.exclusive) heldHere.delete(this.directory);
  }
}

async function refuseLiveExclusiveOwner(directory: string, lockPath: string, leaseMs: number): Promise<void> {
  const { live, holder } = await isLeaseLive(lockPath, leaseMs);
  if (live && holder) {
    throw new CompactorError(
      'unavailable',
      `data directory ${directory} is in use by process ${holder.pid} on ${holder.hostname} ` +
        '(its lease is being renewed)',
      { details: { owner: holder } },
    );
  }
  // Shared openers must not mistake a dead owner's lease for a live one.
  await removeFileDurably(lockPath);
}

async function refuseLiveSharers(
  directory: string,
  sharersDirectory: string,
  leaseMs: number,
): Promise<void> {
  let names: string[];
  try {
    names = await readdir(sharersDirectory);
  } catch (error) {
    if (isMissingFileError(error)) return;
    throw error;
  }
  // Watch every sharer's lease at once: a whole lease at most, however many there are.
  const sharers = await Promise.all(
    names.map(async (name) => {
      const path = join(sharersDirectory, name);
      const { live, holder } = await isLeaseLive(path, leaseMs);
      // Shared stores of this very process are alive (their lease is renewed by this process).
      const ours = holder !== null && holder.pid === process.pid && holder.hostname === hostname();
      return { path, holder, live: live || ours };
    }),
  );
  const live = sharers.find((sharer) => sharer.live);
  if (live?.holder) {
    throw new CompactorError(
      'unavailable',
      `data directory ${directory} is open in shared mode by process ${live.holder.pid} on ${live.holder.hostname}`,
      { details: { owner: live.holder } },
    );
  }
  for (const sharer of sharers) await removeFileDurably(sharer.path);
}
