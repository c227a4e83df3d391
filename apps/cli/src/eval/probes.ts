import type { Message, Thread, ThreadMessage } from '@compactor/core';
import type { QaProbe } from '@compactor/importers';
import { isConstraintSentence } from '@compactor/summarizer';

/** A fact from early in a coding session that a good prompt should still carry. */
export interface CodingProbe {
  kind: 'constraint' | 'file' | 'command' | 'error';
  text: string;
  /** The message it was derived from (compacted or not decides whether it counts). */
  messageId: string;
}

/** Share of the session's user turns the coding probes are taken from. */
export const EARLY_TURN_SHARE = 0.25;
/** Sessions with fewer user turns take their probes from the first 25% of messages instead. */
export const MIN_TURNS_FOR_TURN_SHARE = 4;
/** Commands and error lines are compared by their first line, clipped to this length. */
export const PROBE_TEXT_LIMIT = 120;

const pathKeys = ['path', 'file_path', 'filePath', 'file', 'filename', 'notebook_path'];
const fileToolPattern = /read|edit|write|view|open|create|str_replace|patch/i;
const commandKeys = ['command', 'cmd'];
const shellToolPattern = /bash|shell|exec|command|terminal|run/i;
const errorLinePattern = /error|exception|traceback|fail|not found|denied/i;

/**
 * Probes from the first 25% of user turns (turns 1..ceil(last turn × 0.25); with fewer than 4
 * turns, the first 25% of messages), in message order,
 * de-duplicated by kind and text:
 * - constraint: each sentence of a real user message that `isConstraintSentence` accepts;
 * - file: path-like arguments (`path`, `file_path`, ...) of tool calls whose name reads, edits or writes;
 * - command: the `command`/`cmd` argument of shell-like tool calls, first line, clipped to 120 characters;
 * - error: the first line of a failed tool result mentioning an error (else its first line), clipped.
 */
export function deriveCodingProbes(thread: Thread): CodingProbe[] {
  const lastTurn = thread.messages.at(-1)?.turn ?? 0;
  const earlyTurns = Math.max(1, Math.ceil(lastTurn * EARLY_TURN_SHARE));
  // One long task (SWE-agent: a single user turn) has no early turns to speak of: use messages.
  const byMessages = lastTurn < MIN_TURNS_FOR_TURN_SHARE;
  const earlyMessages = Math.ceil(thread.messages.length * EARLY_TURN_SHARE);
  const probes: CodingProbe[] = [];
  const seen = new Set<string>();
  const add = (kind: CodingProbe['kind'], text: string, message: ThreadMessage) => {
    const trimmed = text.trim();
    if (trimmed.length < 3) return;
    const key = `${kind}\u0000${trimmed}`;
    if (seen.has(key)) return;
    seen.add(key);
    probes.push({ kind, text: trimmed, messageId: message.id });
  };
  for (const message of thread.messages) {
    if (byMessages ? message.index >= earlyMessages : message.turn < 1 || message.turn > earlyTurns) continue;
    if (message.role === 'user' && message.synthetic !== true) {
      for (const sentence of splitSentences(messageText(message))) {
        if (isConstraintSentence(sentence)) add('constraint', sentence, message);
      }
    }
    for (const part of message.content) {
      if (part.type === 'tool_call') {
        const input = isRecord(part.input) ? part.input : {};
        if (fileToolPattern.test(part.name)) {
          for (const key of pathKeys) {
            const value = input[key];
            if (typeof value === 'string' && !value.includes('\n')) add('file', value, message);
          }
        }
        if (shellToolPattern.test(part.name)) {
          for (const key of commandKeys) {
            const value = input[key];
            if (typeof value === 'string') add('command', firstLine(value), message);
          }
        }
      } else if (part.type === 'tool_result' && part.outcome === 'failure') {
        const content = typeof part.content === 'string' ? part.content : JSON.stringify(part.content);
        const lines = content
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '');
        const line = lines.find((candidate) => errorLinePattern.test(candidate)) ?? lines[0];
        if (line) add('error', clip(line), message);
      }
    }
  }
  return probes;
}

/** The plain text of a message's text parts. */
export function messageText(message: Pick<Message, 'content'>): string {
  return message.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** LoCoMo probes that can be measured: those whose evidence turns were found in the thread. */
export function measurableQaProbes(probes: readonly QaProbe[]): QaProbe[] {
  return probes.filter((probe) => probe.evidenceMessageIds.length > 0);
}

function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
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
