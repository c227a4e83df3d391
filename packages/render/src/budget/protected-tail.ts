import type { Slot } from '../plan/slots.js';

/**
 * Index of the first slot of the protected tail: the last `keepRecentTurns` turns, extended by
 * whole turns until it holds at least `keepRecentTokens` (seed 001's keepRecentTokens, seed 002's
 * preserve_recent_turns). Turn numbers are the log's, so summarized turns still count as turns.
 * When that tail alone cannot fit in `limit` (one request followed by hundreds of tool calls), it
 * shrinks to the longest suffix within `keepRecentTokens` (at least the newest slot) rather than
 * giving up: long agent turns still render, their oldest parts dropped first.
 */
export function protectedTailStart(
  slots: readonly Slot[],
  lastTurn: number,
  keepRecentTurns: number,
  keepRecentTokens: number,
  limit = Number.POSITIVE_INFINITY,
): number {
  const turnStart = turnTailStart(slots, lastTurn, keepRecentTurns, keepRecentTokens);
  if (tokensFrom(slots, turnStart) <= limit) return turnStart;
  let start = slots.length;
  let tokens = 0;
  while (start > turnStart) {
    const cost = slots[start - 1]!.tokens;
    if (start < slots.length && tokens + cost > keepRecentTokens) break;
    tokens += cost;
    start -= 1;
  }
  return start;
}

function turnTailStart(
  slots: readonly Slot[],
  lastTurn: number,
  keepRecentTurns: number,
  keepRecentTokens: number,
): number {
  const firstProtectedTurn = lastTurn - keepRecentTurns + 1;
  let start = slots.length;
  let tokens = 0;
  while (start > 0 && slots[start - 1]!.turn >= firstProtectedTurn) {
    start -= 1;
    tokens += slots[start]!.tokens;
  }
  while (start > 0 && tokens < keepRecentTokens) {
    const turn = slots[start - 1]!.turn;
    while (start > 0 && slots[start - 1]!.turn === turn) {
      start -= 1;
      tokens += slots[start]!.tokens;
    }
  }
  return start;
}

export function tokensFrom(slots: readonly Slot[], start: number): number {
  let tokens = 0;
  for (let index = start; index < slots.length; index += 1) tokens += slots[index]!.tokens;
  return tokens;
}
