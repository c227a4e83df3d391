import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CompactorError } from '@compactor/core';
import { lock as lockFile } from 'proper-lockfile';
import type { EmbeddedSharing } from '../store-options.js';
import {
  ensureDirectory,
  isMissingFileError,
  readFileIfPresent,
  removeFileDurably,
  writeFileAtomically,
} from './durable-files.js';

interface LockOwner {
  pid: number;
  hostname: string;
  since: string;
}

/** Data directories this process holds exclusively (a second open here would fork the indexes). */
const heldHere = new Set<string>();

export interface DataDirectoryPaths {
  /** The exclusive owner's file. */
  lockFile: string;
  /** Where each shared-mode opener leaves a file naming itself. */
  sharersDirectory: string;
}

/**
 * Who may open a data directory. Exclusive: one process, named by the `LOCK` file, because its
 * stores keep in-memory indexes that a second writer would silently contradict. Shared: any
 * number of shared-mode openers (each leaves a file in `SHARERS/`), never beside an exclusive
 * one. Files left by processes that are gone (same host, pid not running) are taken over.
 */
export class DataDirectoryLock {
  private constructor(
    private readonly directory: string,
    private readonly ownFile: string,
    private readonly exclusive: boolean,
  ) {}

  static async acquire(
    directory: string,
    paths: DataDirectoryPaths,
    sharing: EmbeddedSharing = 'exclusive',
  ): Promise<DataDirectoryLock> {
    const exclusive = sharing === 'exclusive';
    if (heldHere.has(directory)) {
      throw new CompactorError('unavailable', `data directory ${directory} is already open in this process`);
    }
    if (exclusive) heldHere.add(directory);
    try {
      await ensureDirectory(directory);
      // Opens check and then write: one at a time, or an exclusive and a shared open could both pass.
      const releaseOpening = await lockFile(join(directory, 'OPENING'), {
        realpath: false,
        stale: 2_000,
        retries: { retries: 200, minTimeout: 5, maxTimeout: 50 },
      });
      try {
        await refuseLiveExclusiveOwner(directory, paths.lockFile);
        const me: LockOwner = { pid: process.pid, hostname: hostname(), since: new Date().toISOString() };
        if (exclusive) {
          await refuseLiveSharers(directory, paths.sharersDirectory);
          await writeFileAtomically(paths.lockFile, JSON.stringify(me));
          return new DataDirectoryLock(directory, paths.lockFile, true);
        }
        const ownFile = join(
          paths.sharersDirectory,
          `${hostname()}.${process.pid}.${randomBytes(4).toString('hex')}.json`,
        );
        await writeFileAtomically(ownFile, JSON.stringify(me));
        return new DataDirectoryLock(directory, ownFile, false);
      } finally {
        await releaseOpening();
      }
    } catch (error) {
      if (exclusive) heldHere.delete(directory);
      throw error;
    }
  }

  async release(): Promise<void> {
    await removeFileDurably(this.ownFile);
    if (this.exclusive) heldHere.delete(this.directory);
  }
}

async function refuseLiveExclusiveOwner(directory: string, lockPath: string): Promise<void> {
  const existing = await readFileIfPresent(lockPath);
  if (existing === null) return;
  const owner = parseOwner(existing);
  if (owner && isHeldElsewhere(owner)) {
    throw new CompactorError(
      'unavailable',
      `data directory ${directory} is in use by process ${owner.pid} on ${owner.hostname} ` +
        `(delete ${lockPath} if that process is gone)`,
      { details: { owner } },
    );
  }
  // Shared openers must not mistake a dead owner's lock for a live one.
  await removeFileDurably(lockPath);
}

async function refuseLiveSharers(directory: string, sharersDirectory: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(sharersDirectory);
  } catch (error) {
    if (isMissingFileError(error)) return;
    throw error;
  }
  for (const name of names) {
    const path = join(sharersDirectory, name);
    const bytes = await readFileIfPresent(path);
    const owner = bytes === null ? null : parseOwner(bytes);
    const live = owner !== null && (owner.pid === process.pid || isHeldElsewhere(owner));
    if (live) {
      throw new CompactorError(
        'unavailable',
        `data directory ${directory} is open in shared mode by process ${owner.pid} on ${owner.hostname}`,
        { details: { owner } },
      );
    }
    await removeFileDurably(path);
  }
}

function parseOwner(bytes: Buffer): LockOwner | null {
  try {
    const owner = JSON.parse(bytes.toString('utf8')) as Partial<LockOwner>;
    if (typeof owner.pid === 'number' && typeof owner.hostname === 'string') return owner as LockOwner;
  } catch {
    // An unreadable lock (torn by a crash) protects nothing.
  }
  return null;
}

function isHeldElsewhere(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true; // cannot check another host's processes
  if (owner.pid === process.pid) return false; // ours, left by a store this process never closed
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
