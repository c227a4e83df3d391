/**
 * Where the evaluation corpus lives: `COMPACTOR_CORPUS_DIR`, else `../shared/corpus` beside the
 * repository. Tests that need it skip by name when it is absent; nothing from it is ever copied.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The corpus directory.
 *
 * @returns `COMPACTOR_CORPUS_DIR`, else `../shared/corpus` beside the repository.
 */
export function corpusDirectory(): string {
  return process.env.COMPACTOR_CORPUS_DIR ?? resolve(repositoryRoot, '../shared/corpus');
}

/**
 * A path inside the corpus.
 *
 * @param segments - Path segments under the corpus directory.
 * @returns The path (whether or not it exists).
 */
export function corpusFile(...segments: string[]): string {
  return join(corpusDirectory(), ...segments);
}

/**
 * Whether a corpus file or directory exists, so a test can skip by name when it does not.
 *
 * @param segments - Path segments under the corpus directory.
 * @returns True when it exists.
 */
export function corpusAvailable(...segments: string[]): boolean {
  return existsSync(corpusFile(...segments));
}
