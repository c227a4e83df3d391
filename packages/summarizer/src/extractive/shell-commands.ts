/**
 * Programs that only look: listing, searching and printing files, or asking git what changed. A
 * command made only of these (chained with `|`, `&&`, `;`, after an optional `cd`) changed nothing, so
 * once it succeeded it is like a file read: what it showed went into what the assistant said and did
 * next, and its line in a summary is repetition (ADR-0271).
 */
const LOOKING_PROGRAMS = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ls',
  'tree',
  'find',
  'fd',
  'wc',
  'pwd',
  'echo',
  'which',
  'file',
  'stat',
  'du',
  'sort',
  'uniq',
  'cut',
  'awk',
  'sed',
  'jq',
  'diff',
  'cd',
]);
// `git branch` and `git remote` are left out: with an argument they create, rename or delete.
const LOOKING_GIT = /^git\s+(?:status|log|diff|show|blame|ls-files|rev-parse)\b/;
/**
 * What turns a looking program into a writing one: in-place edits, `sort -o`, `find -exec/-delete/-fprint`,
 * piping into a program that acts, `awk`'s `system()`, redirects into files.
 */
const WRITES =
  /\bsed\b[^|;&]*\s(?:-i|--in-place)\b|\bsort\b[^|;&]*\s-o\b|-exec\s|-execdir\s|-delete\b|-fprint|\|\s*(?:xargs|tee|sh|bash)\b|\bsystem\(|(?<![0-9&])>(?!&)|\d>(?!&|\s*\/dev\/null)/;

/**
 * Whether a shell command only looks (reads, lists, searches, asks git) and writes nothing.
 *
 * @param command - The command line.
 * @returns True when every segment starts with a looking program and nothing is written.
 */
export function isLookingCommand(command: string): boolean {
  if (WRITES.test(command)) return false;
  const segments = command
    .split(/\|\||&&|[|;\n]/)
    .map((segment) => segment.trim())
    .filter((segment) => segment.length > 0);
  if (segments.length === 0) return false;
  return segments.every((segment) => {
    if (LOOKING_GIT.test(segment)) return true;
    const program = /^([\w.-]+)/.exec(segment)?.[1];
    return program !== undefined && LOOKING_PROGRAMS.has(program);
  });
}

/** Programs whose first operand is what they search for. */
const SEARCH_PROGRAMS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag']);

/**
 * What a searching command looked for (ADR-0402): the pattern of each `grep`/`rg`/`ag` segment, unquoted. A successful looking command has no line of its own
 * (ADR-0271), but what it searched for names the symbol the agent was after ("interface ToolAPI").
 *
 * @param command - The command line.
 * @returns The patterns, in order.
 */
export function searchPatternsOf(command: string): string[] {
  const patterns: string[] = [];
  for (const words of shellSegments(command)) {
    if (words.length === 0 || !SEARCH_PROGRAMS.has(words[0]!.text)) continue;
    // A quoted operand is the pattern when there is one (an option's own value, `--type ts`, is not
    // quoted); else the first word that is neither an option nor a number (`-A 15`).
    const operands = words.slice(1);
    const pattern =
      operands.find((word) => word.quoted) ??
      operands.find((word) => !word.text.startsWith('-') && !/^\d+$/.test(word.text));
    if (pattern && pattern.text.trim().length > 0) patterns.push(pattern.text);
  }
  return patterns;
}

/** Whether a character is whitespace as `\s` reads it, without running a regex per ASCII character (ADR-0405). */
function isSpace(char: string): boolean {
  const code = char.charCodeAt(0);
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(char);
}

/**
 * A command line's segments (split at `|`, `||`, `&&`, `;` and line breaks outside quotes), as words.
 * Character comparisons, not a regex per character (ADR-0405: the summarizer reads every looking command).
 */
function shellSegments(command: string): Array<Array<{ text: string; quoted: boolean }>> {
  let segment: Array<{ text: string; quoted: boolean }> = [];
  const segments = [segment];
  let word: { text: string; quoted: boolean } | undefined;
  let quote: string | undefined;
  const endWord = () => {
    if (word) segment.push(word);
    word = undefined;
  };
  for (let at = 0; at < command.length; at += 1) {
    const char = command[at]!;
    if (quote) {
      if (char === quote) quote = undefined;
      // Inside double quotes a backslash escapes only `$`, a backquote, `"` and itself (as the shell reads it).
      else if (char === '\\' && quote === '"' && isDoubleQuoteEscapable(command[at + 1]))
        word!.text += command[++at];
      else word!.text += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= { text: '', quoted: true };
      word.quoted = true;
    } else if (char === '|' || char === ';' || char === '&' || char === '\n') {
      endWord();
      if (segment.length > 0) {
        segment = [];
        segments.push(segment);
      }
    } else if (isSpace(char)) endWord();
    else {
      word ??= { text: '', quoted: false };
      word.text += char;
    }
  }
  endWord();
  return segments;
}

function isDoubleQuoteEscapable(char: string | undefined): boolean {
  return char === '$' || char === '`' || char === '"' || char === '\\';
}
