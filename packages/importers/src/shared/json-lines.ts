import { splitConcatenatedJson } from './split-concatenated-json.js';

export interface JsonLineRecord {
  value: unknown;
  /** 1-based line number in the source. */
  line: number;
}

export interface JsonLines {
  records: JsonLineRecord[];
  /** Lines starting with `//` (fixtures annotate JSONL files that way). */
  commentLines: number;
  /** Lines holding several records glued together, which were split. */
  gluedLines: number[];
  /** Lines that are not JSON at all (e.g. a record cut short by a crash), skipped. */
  unparseableLines: number[];
}

/**
 * Parse JSON Lines robustly: blank and `//` comment lines are skipped, a line holding several
 * records glued together is split, and a line that cannot be parsed is reported, not fatal.
 */
export function parseJsonLines(text: string): JsonLines {
  const result: JsonLines = { records: [], commentLines: 0, gluedLines: [], unparseableLines: [] };
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!.trim();
    if (line === '') continue;
    if (line.startsWith('//')) {
      result.commentLines += 1;
      continue;
    }
    const lineNumber = index + 1;
    if (line[0] !== '{' && line[0] !== '[') {
      result.unparseableLines.push(lineNumber);
      continue;
    }
    try {
      result.records.push({ value: JSON.parse(line), line: lineNumber });
      continue;
    } catch {
      // fall through to the glued-records repair
    }
    const pieces = splitConcatenatedJson(line);
    const values = pieces?.map(tryParse);
    if (values && values.length > 1 && values.every((value) => value !== undefined)) {
      result.gluedLines.push(lineNumber);
      for (const value of values) result.records.push({ value, line: lineNumber });
    } else {
      result.unparseableLines.push(lineNumber);
    }
  }
  return result;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
