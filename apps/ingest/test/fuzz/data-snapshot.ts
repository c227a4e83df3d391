import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Every file under `directories` (relative path → SHA-256 of its bytes); a missing directory is empty. */
export async function snapshotFiles(
  root: string,
  directories: readonly string[],
): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  for (const directory of directories) {
    for (const path of await listFiles(join(root, directory))) {
      snapshot[relative(root, path)] = createHash('sha256')
        .update(await readFile(path))
        .digest('hex');
    }
  }
  return snapshot;
}

async function listFiles(directory: string): Promise<string[]> {
  let entries: Array<{ name: string; isDirectory(): boolean }>;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path)));
    else files.push(path);
  }
  return files.sort();
}
