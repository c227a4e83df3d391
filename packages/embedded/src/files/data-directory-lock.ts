import { hostname } from 'node:os';
import { CompactorError } from '@compactor/core';
import {
  ensureDirectory,
  readFileIfPresent,
  removeFileDurably,
  writeFileAtomically,
} from './durable-files.js';

interface LockOwner {
  pid: number;
  hostname: string;
  since: string;
}

/** Data directories this process holds (a second open in the same process would fork the indexes). */
const heldHere = new Set<string>();

/**
 * One process per data directory: the stores keep in-memory indexes that a second writer would
 * silently contradict. The lock is a file naming its owner; a lock left by a process that is gone
 * (same host, pid not running) is taken over.
 */
export class DataDirectoryLock {
  private constructor(
    private readonly directory: string,
    private readonly lockPath: string,
  ) {}

  static async acquire(directory: string, lockPath: string): Promise<DataDirectoryLock> {
    if (heldHere.has(directory)) {
      throw new CompactorError('unavailable', `data directory ${directory} is already open in this process`);
    }
    heldHere.add(directory);
    try {
      await ensureDirectory(directory);
      const existing = await readFileIfPresent(lockPath);
      if (existing !== null) {
        const owner = parseOwner(existing);
        if (owner && isHeldElsewhere(owner)) {
          throw new CompactorError(
            'unavailable',
            `data directory ${directory} is in use by process ${owner.pid} on ${owner.hostname} ` +
              `(delete ${lockPath} if that process is gone)`,
            { details: { owner } },
          );
        }
      }
      const me: LockOwner = { pid: process.pid, hostname: hostname(), since: new Date().toISOString() };
      await writeFileAtomically(lockPath, JSON.stringify(me));
      return new DataDirectoryLock(directory, lockPath);
    } catch (error) {
      heldHere.delete(directory);
      throw error;
    }
  }

  async release(): Promise<void> {
    await removeFileDurably(this.lockPath);
    heldHere.delete(this.directory);
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
