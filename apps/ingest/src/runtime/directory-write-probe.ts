import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Large enough that a nearly full disk fails the probe, as it fails appends. */
const PROBE_BYTES = 64 * 1024;

/**
 * A readiness probe that writes, syncs and removes a small file in `directory`: it fails while the
 * disk is full or the filesystem is read-only, and passes again once writes work.
 *
 * @param directory - The directory to write in.
 * @returns The probe; it rejects with the file system's error while writes fail.
 */
export function directoryWriteProbe(directory: string): () => Promise<void> {
  return async () => {
    const path = join(directory, `.write-probe-${randomBytes(6).toString('hex')}`);
    try {
      const handle = await open(path, 'w');
      try {
        await handle.write(Buffer.alloc(PROBE_BYTES));
        await handle.datasync();
      } finally {
        await handle.close();
      }
    } finally {
      await rm(path, { force: true });
    }
  };
}
