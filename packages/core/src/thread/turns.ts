import { isTurnStart, type ThreadMessage } from './thread.js';

/** Where one turn's messages are. */
export interface TurnRange {
  turn: number;
  /** Inclusive start and exclusive end indexes into the thread's messages. */
  start: number;
  end: number;
}

/**
 * The thread's turns in order; turn 0 (the preamble) is present only when it has messages.
 *
 * @param messages - The thread's messages in order.
 * @returns One range per turn.
 */
export function turnRanges(messages: readonly ThreadMessage[]): TurnRange[] {
  const ranges: TurnRange[] = [];
  for (const message of messages) {
    const last = ranges.at(-1);
    if (last && last.turn === message.turn) {
      last.end = message.index + 1;
    } else {
      ranges.push({ turn: message.turn, start: message.index, end: message.index + 1 });
    }
  }
  return ranges;
}

/**
 * Number of real, root-level user turns.
 *
 * @param messages - The messages to count in.
 * @returns The count.
 */
export function countUserTurns(messages: readonly ThreadMessage[]): number {
  let count = 0;
  for (const message of messages) if (isTurnStart(message)) count += 1;
  return count;
}

/**
 * Move a cut index forward to the next turn start (ADR-0012).
 *
 * @param messages - The messages cut.
 * @param index - The cut (negative counts as 0).
 * @returns The first turn start at or after it, or `messages.length` when there is none.
 */
export function snapToTurnStart(
  messages: readonly Pick<ThreadMessage, 'role' | 'synthetic' | 'subagentId'>[],
  index: number,
): number {
  let cut = Math.max(0, index);
  while (cut < messages.length && !isTurnStart(messages[cut]!)) cut += 1;
  return cut;
}
