/**
 * Where the evaluation corpus lives: `COMPACTOR_CORPUS_DIR`, else `../shared/corpus` beside the
 * repository. Tests that need it skip by name when it is absent; nothing from it is ever copied.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function corpusDirectory(): string {
  return process.env.COMPACTOR_CORPUS_DIR ?? resolve(repositoryRoot, '../shared/corpus');
}

export function corpusFile(...segments: string[]): string {
  return join(corpusDirectory(), ...segments);
}

export function corpusAvailable(...segments: string[]): boolean {
  return existsSync(corpusFile(...segments));
}
