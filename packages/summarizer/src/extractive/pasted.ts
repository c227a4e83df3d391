import { clip } from '../text.js';

/** A line that reads as pasted material: log records, stack frames, code, file contents, tables. */
const MATERIAL_LINE =
  /^\s*(?:at\s+\S+|\d{4}-\d\d-\d\d[T ]\d|\[?\d\d:\d\d:\d\d|(?:ERROR|WARN|INFO|DEBUG|TRACE)\b|[{}[\]();]|(?:import|export|const|let|var|function|class|def|return|if|for|while|from|public|private)\b|[#/]{2}|\$\s|>\s|\||[-+]{3}|@@|\w+\s*[=:]\s*\S+[;,]?\s*$|\s{4,}\S)/;

/**
 * How a user message splits into what the person said and what they pasted (logs, files, long
 * code): fenced blocks, and runs of at least `minLines` lines that read as material, are pasted.
 */
export interface PastedSplit {
  /** The person's own lines, in order. */
  prose: string;
  /** Each pasted block's lines. */
  pasted: string[][];
}

/**
 * Split a message into prose and pasted blocks (ADR-0164).
 *
 * @param text - The message's text.
 * @param minLines - The shortest unfenced run of material lines counted as pasted.
 * @returns Prose and pasted blocks; no blocks when nothing was pasted.
 */
export function splitPasted(text: string, minLines = 8): PastedSplit {
  const prose: string[] = [];
  const pasted: string[][] = [];
  const lines = text.split('\n');
  let run: string[] = [];
  const flush = () => {
    if (run.length >= minLines) pasted.push(run);
    else prose.push(...run);
    run = [];
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (/^\s*```/.test(line)) {
      flush();
      const block: string[] = [];
      index += 1;
      while (index < lines.length && !/^\s*```/.test(lines[index]!)) {
        block.push(lines[index]!);
        index += 1;
      }
      if (block.length > 0) pasted.push(block);
      continue;
    }
    if (MATERIAL_LINE.test(line) && line.trim().length > 0) run.push(line);
    else {
      flush();
      prose.push(line);
    }
  }
  flush();
  return { prose: prose.join('\n').trim(), pasted };
}

/**
 * A user request as the summary keeps it: the person's words (clipped to `maxChars`) and each
 * pasted block by its head and tail lines, with how many lines were left out, instead of a head-only
 * cut that loses the error at the bottom of a log (ADR-0164).
 *
 * @param text - The message's text.
 * @param maxChars - The longest the person's own words are kept.
 * @param edgeLines - Lines kept from each end of a pasted block.
 * @returns The text to keep.
 */
export function clipPasted(text: string, maxChars: number, edgeLines = 3): string {
  const { prose, pasted } = splitPasted(text);
  if (pasted.length === 0) return text.length <= maxChars ? text : clip(text, maxChars);
  const blocks = pasted.map((block) => {
    const lines = block.map((line) => clip(line, 200));
    if (lines.length <= 2 * edgeLines + 1) return `[pasted ${lines.length} lines]\n${lines.join('\n')}`;
    return [
      `[pasted ${lines.length} lines, ${lines.length - 2 * edgeLines} in the middle left out]`,
      ...lines.slice(0, edgeLines),
      '…',
      ...lines.slice(-edgeLines),
    ].join('\n');
  });
  const words = prose.length <= maxChars ? prose : clip(prose, maxChars);
  return [words, ...blocks].filter((part) => part.length > 0).join('\n');
}
