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
