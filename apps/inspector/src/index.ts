import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `pnpm --filter @compactor/inspector build` puts the page (the ingest serves it at /ui/). */
export const inspectorAssetsDirectory: string = fileURLToPath(new URL('../dist', import.meta.url));

/** Whether the page has been built (the root postinstall builds it; ADR-0090). */
export function inspectorIsBuilt(directory: string = inspectorAssetsDirectory): boolean {
  return existsSync(`${directory}/index.html`);
}

/** The command that builds the page, for messages to a person who has not built it. */
export const INSPECTOR_BUILD_COMMAND = 'pnpm --filter @compactor/inspector build';

const sourcesDirectory = fileURLToPath(new URL('../ui', import.meta.url));

/**
 * Whether the page must be (re)built: not built, or a source under `ui/` changed after the build.
 * Tests call it rather than always rebuilding, so a build never empties `dist/` under another test.
 */
export function inspectorNeedsBuild(directory: string = inspectorAssetsDirectory): boolean {
  if (!inspectorIsBuilt(directory)) return true;
  return newestChange(sourcesDirectory) > statSync(join(directory, 'index.html')).mtimeMs;
}

function newestChange(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}
