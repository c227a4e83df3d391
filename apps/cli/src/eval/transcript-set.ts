import { readdir, readFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { detectFormat, openTranscript } from '@compactor/importers';
import type { EvalTranscript } from './eval-types.js';

/** Multi-conversation files with more conversations than this are sampled, not run whole. */
const SAMPLE_ABOVE = 10;
/** How many conversations a sampled file contributes: its largest ones. */
const SAMPLE_SIZE = 5;
/** `--quick`: the first conversations of a small multi-conversation file (LoCoMo). */
const QUICK_CONVERSATIONS = 2;

const transcriptExtensions = /\.(jsonl?|traj|md)$/i;

export interface TranscriptSet {
  transcripts: EvalTranscript[];
  /** Files left out, with why. */
  skipped: string[];
}

/**
 * Every transcript file under `corpusDir` (README files and Claude Code `subagents/` folders
 * excepted: subagents come in with their session). A file with up to 10 conversations runs all of
 * them (`quick`: the first 2); a larger one runs its 5 largest by imported size (ties: the earlier),
 * so the sample is deterministic. Files no importer recognises are skipped and listed.
 */
export async function selectTranscripts(
  corpusDir: string,
  options: { quick?: boolean } = {},
): Promise<TranscriptSet> {
  const files = (await listFiles(corpusDir)).sort();
  const transcripts: EvalTranscript[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const name = relative(corpusDir, file);
    const text = await readFile(file, 'utf8');
    let opened: ReturnType<typeof openTranscript>;
    try {
      opened = openTranscript({ text, fileName: file }, { format: detectFormat(text, file) });
    } catch (error) {
      skipped.push(
        `${name}: not an importer format (${error instanceof Error ? error.message : String(error)})`,
      );
      continue;
    }
    const label = name.replace(transcriptExtensions, '');
    const count = opened.conversations.length;
    let indexes: number[];
    if (count <= 1) indexes = [0];
    else if (count <= SAMPLE_ABOVE)
      indexes = range(options.quick ? Math.min(QUICK_CONVERSATIONS, count) : count);
    else {
      const sizes = range(count).map((index) => ({
        index,
        size: opened
          .import({ conversation: index })
          .events.reduce((total, event) => total + JSON.stringify(event).length, 0),
      }));
      sizes.sort((left, right) => right.size - left.size || left.index - right.index);
      indexes = sizes
        .slice(0, SAMPLE_SIZE)
        .map((entry) => entry.index)
        .sort((left, right) => left - right);
    }
    for (const conversation of indexes) {
      transcripts.push({
        kind: opened.format,
        file,
        conversation,
        label: count > 1 ? `${label}#${conversation + 1}` : label,
      });
    }
  }
  return { transcripts, skipped };
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'subagents') files.push(...(await listFiles(path)));
    } else if (transcriptExtensions.test(entry.name) && basename(entry.name).toLowerCase() !== 'readme.md') {
      files.push(path);
    }
  }
  return files;
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
