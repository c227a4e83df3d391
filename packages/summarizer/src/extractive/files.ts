import type { SummaryToolOutcome, ThreadMessage } from '@compactor/core';

const READ_TOOLS =
  /^(read|read_file|readfile|view|cat|open|open_file|get_file|file_read|notebookread|str_replace_based_edit_tool:view)$/i;
const WRITE_TOOLS =
  /^(edit|write|write_file|create|create_file|str_replace|str_replace_editor|apply_patch|multiedit|multi_edit|notebookedit|patch|replace|insert)$/i;
const PATH_KEYS = ['path', 'file_path', 'filePath', 'filename', 'file', 'notebook_path', 'target_file'];

function pathArgument(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const key of PATH_KEYS) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.length > 0 && value.length < 500) return value;
  }
  return undefined;
}

/** Some editors take a sub-command: `{command: 'view', path}` reads, `{command: 'create', path}` writes. */
function editorCommand(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const command = (input as Record<string, unknown>).command;
  return typeof command === 'string' ? command : undefined;
}

/** Files the agent read and modified, in first-touch order, from its tool calls' arguments. */
export function extractFiles(messages: readonly ThreadMessage[]): {
  filesRead: string[];
  filesModified: string[];
} {
  const filesRead = new Set<string>();
  const filesModified = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type !== 'tool_call') continue;
      const path = pathArgument(part.input);
      if (!path) continue;
      const command = editorCommand(part.input);
      if (command === 'view' || READ_TOOLS.test(part.name)) filesRead.add(path);
      else if (WRITE_TOOLS.test(part.name) || (command !== undefined && command !== 'view'))
        filesModified.add(path);
    }
  }
  return { filesRead: [...filesRead], filesModified: [...filesModified] };
}

/**
 * Tool outcomes without the lines that only repeat a file list (ADR-0271): a successful call whose one
 * key field is a path already listed as read or modified says nothing the list does not ("edit
 * (success ×3) {path}" beside "Files modified: path"). Failures and calls with other key fields stay.
 *
 * @param outcomes - The grouped tool outcomes.
 * @param files - The span's files read and modified.
 * @returns The outcomes that add something.
 */
export function withoutFileEchoes(
  outcomes: readonly SummaryToolOutcome[],
  files: { filesRead: readonly string[]; filesModified: readonly string[] },
): SummaryToolOutcome[] {
  const listed = new Set([...files.filesRead, ...files.filesModified]);
  return outcomes.filter((outcome) => {
    if (outcome.outcome !== 'success') return true;
    const keys = Object.keys(outcome.keyFields);
    if (keys.length !== 1 || !PATH_KEYS.includes(keys[0]!)) return true;
    const path = outcome.keyFields[keys[0]!];
    return typeof path !== 'string' || !listed.has(path);
  });
}
