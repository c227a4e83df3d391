import type { ToolDurability } from '@compactor/core';

/**
 * Default durability by tool name, for imported results (ADR-0007's durability classes). Names are
 * compared lower-cased with `-`/`_`/spaces removed, so `WebSearch`, `web_search` and
 * `web-search` match the same entry. Tools not listed get no durability, so the thread's
 * policy default applies.
 */
const durabilityByTool: Record<string, ToolDurability> = {
  // Reading a file again gives the same answer while the file is unchanged.
  read: 'replayable',
  readfile: 'replayable',
  view: 'replayable',
  open: 'replayable',
  cat: 'replayable',
  notebookread: 'replayable',
  goto: 'replayable',
  scrollup: 'replayable',
  scrolldown: 'replayable',
  // Listings and searches are cheap to redo and rarely worth keeping verbatim.
  ls: 'ephemeral',
  list: 'ephemeral',
  listdir: 'ephemeral',
  glob: 'ephemeral',
  grep: 'ephemeral',
  find: 'ephemeral',
  findfile: 'ephemeral',
  searchfile: 'ephemeral',
  searchdir: 'ephemeral',
  // Side effects and decisions: keep a placeholder with key fields.
  bash: 'anchoring',
  shell: 'anchoring',
  edit: 'anchoring',
  multiedit: 'anchoring',
  write: 'anchoring',
  create: 'anchoring',
  strreplaceeditor: 'anchoring',
  notebookedit: 'anchoring',
  submit: 'anchoring',
  task: 'anchoring',
  todowrite: 'anchoring',
  // The web changes and may cost money: never assume a result can be fetched again.
  websearch: 'non_replayable',
  webfetch: 'non_replayable',
  fetch: 'non_replayable',
  browser: 'non_replayable',
};

/**
 * The durability an imported tool result gets by its tool's name.
 *
 * @param toolName - The tool's name, in any casing or separator style.
 * @returns The durability, or undefined for tools not listed (the thread's policy default applies).
 */
export function defaultToolDurability(toolName: string): ToolDurability | undefined {
  return durabilityByTool[toolName.toLowerCase().replace(/[-_\s]/g, '')];
}

/** The file path a file tool's call names, kept as a key field of its result. */
export function pathKeyField(input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null) return {};
  const record = input as Record<string, unknown>;
  for (const key of ['path', 'file_path', 'filePath', 'notebook_path']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return { path: value };
  }
  return {};
}
