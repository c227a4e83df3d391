import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo root: this file is packages/tokenizer/scripts/corpus-location.ts. */
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** `COMPACTOR_CORPUS_DIR`, else `<repo>/../shared/corpus`. */
export const corpusDirectory =
  process.env.COMPACTOR_CORPUS_DIR ?? resolve(repositoryRoot, '../shared/corpus');

export const piSessionFiles = [
  'before-compaction.jsonl',
  'compact.jsonl',
  'large-session.jsonl',
  'session.jsonl',
];

export function corpusPath(...parts: string[]): string {
  return join(corpusDirectory, ...parts);
}

export const piCorpusAvailable = piSessionFiles.every((file) => existsSync(corpusPath('pi', file)));
