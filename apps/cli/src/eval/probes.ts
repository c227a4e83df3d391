import { isTurnStart, type Message, type Thread } from '@compactor/core';
import type { PiCompaction } from '@compactor/importers';

/**
 * A coding-session question a good prompt should still answer, computed from the log itself (the
 * session's final state) or taken from the summaries pi wrote when it compacted — never from our
 * own extractors, so a probe cannot pass just because the summarizer copies what the probe tests.
 */
export interface CodingProbe {
  kind: 'file-modified' | 'last-failure-command' | 'last-failure-error' | 'current-task' | 'pi-summary';
  text: string;
}

/** Commands, errors and the task are compared by their first line, clipped to this length. */
export const PROBE_TEXT_LIMIT = 120;
/** Terms of pi's summaries shorter than this are too generic to probe. */
export const MIN_PI_TERM_CHARS = 4;
/** A current task is a user turn of at least this many words ("ok", "continue" are not tasks). */
export const MIN_TASK_WORDS = 5;

const pathKeys = ['path', 'file_path', 'filePath', 'file', 'filename', 'notebook_path'];
const modifyingToolPattern = /edit|write|create|str_replace|patch|apply|replace|insert|delete|move|rename/i;
const commandKeys = ['command', 'cmd'];
const shellToolPattern = /bash|shell|exec|command|terminal|run/i;
const errorLinePattern = /error|exception|traceback|fail|not found|denied/i;

/**
 * The session's final state, from the log: every file a modifying tool call touched; the last failed
 * shell command and the first error line of its result; the current task (the newest user turn of
 * 5+ words, its first line).
 */
export function finalStateProbes(thread: Thread): CodingProbe[] {
  const probes: CodingProbe[] = [];
  const seen = new Set<string>();
  const add = (kind: CodingProbe['kind'], text: string) => {
    const trimmed = clip(text.trim());
    if (trimmed.length < 3 || seen.has(`${kind}\u0000${trimmed}`)) return;
    seen.add(`${kind}\u0000${trimmed}`);
    probes.push({ kind, text: trimmed });
  };
  const commands = new Map<string, string>();
  let lastFailure: { command: string; error: string } | undefined;
  for (const message of thread.messages) {
    for (const part of message.content) {
      if (part.type === 'tool_call') {
        const input = isRecord(part.input) ? part.input : {};
        if (modifyingToolPattern.test(part.name)) {
          for (const key of pathKeys) {
            const value = input[key];
            if (typeof value === 'string' && !value.includes('\n')) add('file-modified', value);
          }
        }
        if (shellToolPattern.test(part.name)) {
          const command = commandKeys.map((key) => input[key]).find((value) => typeof value === 'string');
          if (typeof command === 'string') commands.set(part.id, firstLine(command));
        }
      } else if (part.type === 'tool_result' && part.outcome === 'failure') {
        const command = commands.get(part.toolCallId);
        if (command === undefined) continue;
        const content = typeof part.content === 'string' ? part.content : JSON.stringify(part.content);
        const lines = content
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '');
        lastFailure = { command, error: lines.find((line) => errorLinePattern.test(line)) ?? lines[0] ?? '' };
      }
    }
  }
  if (lastFailure) {
    add('last-failure-command', lastFailure.command);
    add('last-failure-error', lastFailure.error);
  }
  const task = [...thread.messages]
    .reverse()
    .find((message) => isTurnStart(message) && wordCount(messageText(message)) >= MIN_TASK_WORDS);
  if (task) add('current-task', firstLine(messageText(task)));
  return probes;
}

/**
 * What pi kept when it compacted: the backticked terms and file paths of each of pi's own compaction
 * summaries (4+ characters) that occur in the session before that compaction — content pi judged
 * worth keeping from the history, not something it invented.
 */
export function piSummaryProbes(thread: Thread, compactions: readonly PiCompaction[]): CodingProbe[] {
  const probes: CodingProbe[] = [];
  const seen = new Set<string>();
  const indexById = new Map(thread.messages.map((message) => [message.id, message.index]));
  for (const compaction of compactions) {
    const at = compaction.atMessageId === undefined ? -1 : (indexById.get(compaction.atMessageId) ?? -1);
    if (at < 0) continue;
    const before = thread.messages
      .slice(0, at + 1)
      .map((message) => messageText(message, true))
      .join('\n');
    for (const term of summaryTerms(compaction.summary)) {
      if (seen.has(term) || !before.includes(term)) continue;
      seen.add(term);
      probes.push({ kind: 'pi-summary', text: term });
    }
  }
  return probes;
}

/** Backticked spans (single line) and path-like words with an extension, 4+ characters. */
export function summaryTerms(summary: string): string[] {
  const terms = new Set<string>();
  for (const match of summary.matchAll(/`([^`\n]+)`/g)) terms.add(match[1]!.trim());
  for (const match of summary.matchAll(
    /(?:^|[\s(["'])((?:[\w.-]+\/)*[\w-]+\.[a-z][a-z0-9]{0,5})(?=$|[\s)\]"',:;.])/gim,
  ))
    terms.add(match[1]!);
  return [...terms].filter((term) => term.length >= MIN_PI_TERM_CHARS && term.length <= PROBE_TEXT_LIMIT);
}

/** The plain text of a message's text parts (with `withTools`, tool calls and results too). */
export function messageText(message: Pick<Message, 'content'>, withTools = false): string {
  return message.content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (!withTools) return '';
      if (part.type === 'tool_call') return JSON.stringify(part.input ?? {});
      if (part.type === 'tool_result')
        return typeof part.content === 'string' ? part.content : JSON.stringify(part.content);
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function firstLine(text: string): string {
  return clip(text.trim().split('\n')[0] ?? '');
}

function clip(text: string): string {
  return text.length > PROBE_TEXT_LIMIT ? text.slice(0, PROBE_TEXT_LIMIT) : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
