import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where `pnpm --filter @compactor/inspector build` puts the page (the ingest serves it at /ui/). */
export const inspectorAssetsDirectory: string = fileURLToPath(new URL('../dist', import.meta.url));

/** Whether the page has been built (the root postinstall builds it; ADR-0090). */
export function inspectorIsBuilt(directory: string = inspectorAssetsDirectory): boolean {
  return existsSync(`${directory}/index.html`);
}

/** The command that builds the page, for messages to a person who has not built it. */
export const INSPECTOR_BUILD_COMMAND = 'pnpm --filter @compactor/inspector build';
