import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { NotFoundError, ValidationError } from '@compactor/core';
import { detectFormat } from './detect-format.js';
import { importTranscript } from './import-transcript.js';
import type { ImportedTranscript, ImportOptions, SubagentTranscript } from './types.js';

/**
 * Read a transcript file and import it. For Claude Code sessions, the subagent transcripts
 * Claude Code keeps beside the session (`<session>/subagents/agent-<id>.jsonl`) come along.
 *
 * @param path - The transcript file.
 * @param options - As for {@link importTranscript}.
 * @returns The imported conversation.
 * @throws NotFoundError when the file does not exist; ValidationError as {@link importTranscript} does.
 */
export async function importTranscriptFile(
  path: string,
  options: ImportOptions = {},
): Promise<ImportedTranscript> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError('transcript file', path);
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') {
      throw new ValidationError(`${path} is a directory: give one transcript file inside it`, [
        { path: 'file', message: 'expected a transcript file, not a directory' },
      ]);
    }
    throw error;
  }
  const format =
    options.format === undefined || options.format === 'auto' ? detectFormat(text, path) : options.format;
  const subagents = format === 'claude-code' ? await readSubagents(path) : [];
  return importTranscript({ text, fileName: path, subagents }, { ...options, format });
}

async function readSubagents(sessionPath: string): Promise<SubagentTranscript[]> {
  const directory = join(dirname(sessionPath), basename(sessionPath).replace(/\.jsonl$/i, ''), 'subagents');
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const files = names.filter((name) => name.endsWith('.jsonl')).sort();
  return Promise.all(
    files.map(async (name) => ({
      agentId: name.replace(/\.jsonl$/, '').replace(/^agent-/, ''),
      text: await readFile(join(directory, name), 'utf8'),
    })),
  );
}
