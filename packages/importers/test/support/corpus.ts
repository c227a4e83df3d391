import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = resolve(fileURLToPath(new URL('../../../../', import.meta.url)));

/** The shared evaluation corpus (read in place, never copied into the project). */
export const corpusDirectory =
  process.env.COMPACTOR_CORPUS_DIR ?? resolve(repositoryRoot, '../shared/corpus');
export const corpusAvailable = existsSync(join(corpusDirectory, 'README.md'));

/** Every file of the corpus but its README, as paths relative to the corpus. */
export function corpusFiles(): string[] {
  return walk(corpusDirectory)
    .map((path) => relative(corpusDirectory, path))
    .filter((path) => path !== 'README.md')
    .sort();
}

function walk(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
