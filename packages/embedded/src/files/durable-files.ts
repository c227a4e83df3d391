import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

/** fsync a directory, so a file created, renamed or removed in it survives a power cut. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** mkdir -p, then fsync the parent of every directory it created. */
export async function ensureDirectory(directory: string): Promise<void> {
  const firstCreated = await mkdir(directory, { recursive: true });
  if (firstCreated === undefined) return;
  const created = relative(firstCreated, directory).split(sep).filter(Boolean);
  let current = firstCreated;
  await syncDirectory(dirname(current));
  for (const part of created) {
    await syncDirectory(current);
    current = join(current, part);
  }
}

/**
 * Replace a file's content all at once: write a temporary file beside it, fsync it, rename it over
 * the target and fsync the directory. A reader (or a crash) sees the old or the new file, never a mix.
 */
export async function writeFileAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const directory = dirname(path);
  await ensureDirectory(directory);
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(directory);
}

/** Remove a file if it is there, durably. */
export async function removeFileDurably(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (isMissingFileError(error)) return;
    throw error;
  }
  await syncDirectory(dirname(path));
}

/** The file's bytes, or null when it does not exist. */
export async function readFileIfPresent(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if (isMissingFileError(error)) return null;
    throw error;
  }
}

export function isMissingFileError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}

/** Leftovers of writeFileAtomically interrupted by a crash. */
export function isTemporaryFileName(name: string): boolean {
  return name.endsWith('.tmp');
}
