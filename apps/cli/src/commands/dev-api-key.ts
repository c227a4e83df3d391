import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where `serve` keeps its development key: beside the data it protects, readable by the owner only. */
export const DEV_API_KEY_FILE = 'dev-api-key';

/**
 * The development API key of a data directory: made once, then read back on every `serve`, so
 * scripts and curl commands keep working across restarts. Delete the file to rotate it.
 */
export async function loadOrCreateDevApiKey(dataDir: string): Promise<string> {
  const file = join(dataDir, DEV_API_KEY_FILE);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (/^dev-[0-9a-f]{24}$/.test(stored)) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = `dev-${randomBytes(12).toString('hex')}`;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}
