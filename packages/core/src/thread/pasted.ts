/**
 * Pasted material in a person's message (ADR-0164, ADR-0266): the rule that tells what someone
 * said from what they pasted (logs, files, long code) lives here once, for the summarizer (which
 * keeps a request's words and each paste's head and tail) and the abridge rung (which keeps a user
 * message in the rendered request with its prose verbatim and each paste clipped in place).
 */

/** A line that reads as pasted material: log records, stack frames, code, file contents, tables. */
const MATERIAL_LINE =
  /^\s*(?:at\s+\S+|\d{4}-\d\d-\d\d[T ]\d|\[?\d\d:\d\d:\d\d|(?:ERROR|WARN|INFO|DEBUG|TRACE)\b|[{}[\]();]|(?:import|export|const|let|var|function|class|def|return|if|for|while|from|public|private)\b|[#/]{2}|\$\s|>\s|\||[-+]{3}|@@|\w+\s*[=:]\s*\S+[;,]?\s*$|\s{4,}\S)/;

const FENCE = /^\s*```/;

/** The shortest unfenced run of material lines counted as pasted. */
export const PASTED_MIN_LINES = 8;

/**
 * One stretch of a message, in order: the person's own lines, or a pasted block. A fenced block
 * keeps its fence lines in `open` and `close` (absent when the message ends inside the fence).
 */
export type PastedSegment =
  | { kind: 'prose'; lines: string[] }
  | { kind: 'pasted'; lines: string[]; open?: string; close?: string };

/**
 * A message's text cut into prose and pasted segments, in order; joining every segment's lines (with
 * the fences) gives the text back.
 *
 * @param text - The message's text.
 * @param minLines - The shortest unfenced run of material lines counted as pasted.
 * @returns The segments; a single prose segment when nothing was pasted.
 */
export function pastedSegments(text: string, minLines = PASTED_MIN_LINES): PastedSegment[] {
  const segments: PastedSegment[] = [];
  const lines = text.split('\n');
  const prose = (line: string) => {
    const last = segments.at(-1);
    if (last?.kind === 'prose') last.lines.push(line);
    else segments.push({ kind: 'prose', lines: [line] });
  };
  let run: string[] = [];
  const flush = () => {
    if (run.length >= minLines) segments.push({ kind: 'pasted', lines: run });
    else for (const line of run) prose(line);
    run = [];
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (FENCE.test(line)) {
      flush();
      const block: string[] = [];
      index += 1;
      while (index < lines.length && !FENCE.test(lines[index]!)) {
        block.push(lines[index]!);
        index += 1;
      }
      const close = lines[index];
      segments.push({ kind: 'pasted', lines: block, open: line, ...(close !== undefined ? { close } : {}) });
      continue;
    }
    if (MATERIAL_LINE.test(line) && line.trim().length > 0) run.push(line);
    else {
      flush();
      prose(line);
    }
  }
  flush();
  return segments;
}

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
export function splitPasted(text: string, minLines = PASTED_MIN_LINES): PastedSplit {
  const prose: string[] = [];
  const pasted: string[][] = [];
  for (const segment of pastedSegments(text, minLines)) {
    if (segment.kind === 'prose') prose.push(...segment.lines);
    else if (segment.lines.length > 0) pasted.push(segment.lines);
  }
  return { prose: prose.join('\n').trim(), pasted };
}

/**
 * One line of at most `maxChars` characters: whitespace collapsed, an ellipsis where it was cut.
 *
 * @param text - The text to clip.
 * @param maxChars - The longest result.
 * @returns The clipped line.
 */
export function clipLine(text: string, maxChars: number): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length <= maxChars ? single : `${single.slice(0, maxChars - 1)}…`;
}

/**
 * The marker a clipped pasted block opens with: how many lines it had and how many were left out.
 *
 * @param lines - The block's line count.
 * @param leftOut - Lines left out of its middle (0: shown whole).
 * @returns The marker line.
 */
export function pastedMarkerText(lines: number, leftOut: number): string {
  return leftOut === 0
    ? `[pasted ${lines} lines]`
    : `[pasted ${lines} lines, ${leftOut} in the middle left out]`;
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
  if (pasted.length === 0) return text.length <= maxChars ? text : clipLine(text, maxChars);
  const blocks = pasted.map((block) => {
    const lines = block.map((line) => clipLine(line, 200));
    if (lines.length <= 2 * edgeLines + 1) return `${pastedMarkerText(lines.length, 0)}\n${lines.join('\n')}`;
    return [
      pastedMarkerText(lines.length, lines.length - 2 * edgeLines),
      ...lines.slice(0, edgeLines),
      '…',
      ...lines.slice(-edgeLines),
    ].join('\n');
  });
  const words = prose.length <= maxChars ? prose : clipLine(prose, maxChars);
  return [words, ...blocks].filter((part) => part.length > 0).join('\n');
}

/** Longest a kept line of a clipped paste is (a minified bundle is one very long line). */
const CLIPPED_LINE_CHARS = 400;

/**
 * The shortest single line clipped on its own (ADR-0312): about 1,000 tokens of minified JSON, a
 * base64 blob or a long log record. Shorter lines are kept whole wherever they are.
 */
export const PASTED_LONG_LINE_CHARS = 4_000;

/** Characters a clipped long line keeps from each end. */
const LONG_LINE_EDGE_CHARS = 600;

/** A whitespace-separated token that reads as a word of prose: letters, then at most closing punctuation. */
const PROSE_WORD = /^[("'“‘]?[\p{L}][\p{L}\p{M}'’-]*[.,;:!?)"'”’]*$/u;

/** Below this share of characters in prose words, a long line is material (a paragraph is mostly words). */
const PROSE_WORD_SHARE = 0.5;

/**
 * Whether one line is pasted material by itself (ADR-0312): at least {@link PASTED_LONG_LINE_CHARS}
 * characters of which less than half is in whitespace-separated tokens that read as words (minified
 * JSON, base64, a log record with a payload). A paragraph a person wrote is mostly words, however long.
 *
 * @param line - One line of a message.
 * @returns True when the line is a long paste of its own.
 */
export function isPastedLine(line: string): boolean {
  if (line.length < PASTED_LONG_LINE_CHARS) return false;
  // Weighed by characters, so one huge token (a payload after a few words) is not outvoted.
  let wordChars = 0;
  for (const token of line.split(/\s+/)) if (PROSE_WORD.test(token)) wordChars += token.length + 1;
  return wordChars / line.length < PROSE_WORD_SHARE;
}

/**
 * The marker a clipped long line is cut around: how long it was and how much of its middle is left out.
 *
 * @param chars - The line's length in characters.
 * @param leftOut - Characters left out of its middle.
 * @returns The marker.
 */
export function pastedLineMarkerText(chars: number, leftOut: number): string {
  return `[… pasted line of ${chars} characters, ${leftOut} in the middle left out …]`;
}

/** One long line cut to its head and tail characters around a marker, on one line. */
function clipLongLine(line: string): string {
  const leftOut = line.length - 2 * LONG_LINE_EDGE_CHARS;
  return `${line.slice(0, LONG_LINE_EDGE_CHARS)} ${pastedLineMarkerText(line.length, leftOut)} ${line.slice(-LONG_LINE_EDGE_CHARS)}`;
}

/**
 * A message's text with its prose verbatim and in place, and each pasted block longer than
 * `2 × edgeLines + 1` lines cut to its head and tail under a marker (ADR-0266), and each single line
 * of pasted material of at least {@link PASTED_LONG_LINE_CHARS} characters cut to its head and tail
 * characters (ADR-0312): what the rendered request shows of a user message whose paste made it too
 * large to keep whole.
 *
 * @param text - The message's text.
 * @param edgeLines - Lines kept from each end of a pasted block.
 * @returns The clipped text, or undefined when no block needed clipping.
 */
export function clipPastedInPlace(text: string, edgeLines: number): string | undefined {
  const segments = pastedSegments(text);
  let clipped = false;
  const out: string[] = [];
  // A single long line of material is clipped by characters, wherever it stands (ADR-0312).
  const lineCut = (line: string, inPaste: boolean) => {
    if (line.length < PASTED_LONG_LINE_CHARS || !(inPaste || isPastedLine(line))) return line;
    clipped = true;
    return clipLongLine(line);
  };
  for (const segment of segments) {
    if (segment.kind === 'prose') {
      for (const line of segment.lines) out.push(lineCut(line, false));
      continue;
    }
    if (segment.open !== undefined) out.push(segment.open);
    const { lines } = segment;
    if (lines.length <= 2 * edgeLines + 1) for (const line of lines) out.push(lineCut(line, true));
    else {
      clipped = true;
      const cut = (line: string) =>
        line.length <= CLIPPED_LINE_CHARS ? line : `${line.slice(0, CLIPPED_LINE_CHARS - 1)}…`;
      out.push(
        pastedMarkerText(lines.length, lines.length - 2 * edgeLines),
        ...lines.slice(0, edgeLines).map(cut),
        '…',
        ...lines.slice(-edgeLines).map(cut),
      );
    }
    if (segment.close !== undefined) out.push(segment.close);
  }
  return clipped ? out.join('\n') : undefined;
}
