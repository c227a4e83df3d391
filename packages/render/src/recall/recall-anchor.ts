import { isTurnStart, type RecallPolicy } from '@compactor/core';
import type { Slot } from '../plan/slots.js';

/*
 * Recall anchored at the newest turn (ADR-0210). The recall block is ephemeral; sent after the newest
 * message and sized to the room left, it was rewritten on every call, past the provider's cached
 * prefix. Anchored right after the message that opened the turn and sized from the room the request
 * had when the turn began, it is the same bytes on every call of an agent's turn: the calls after the
 * first read it from the cache. As the turn grows the block may only shrink, by halvings of that
 * first allowance, so it changes a few times per turn at most.
 */

/** Below this many tokens a halved allowance brings no block at all. */
export const MIN_ANCHORED_ALLOWANCE = 64;

/** Where the newest turn opens among the live slots, and what follows it. */
export interface RecallAnchor {
  /** Index of the slot of the message that opened the newest turn. */
  slot: number;
  /** Tokens of the live slots after it (the turn's growth since it began). */
  tokensAfter: number;
}

/**
 * The live slot of the message that opened the newest turn (a person's message of the root agent),
 * when the newest live slot belongs to that turn; undefined when there is none (the opening was
 * compacted or dropped: the block then goes at the end).
 *
 * @param slots - The rendered slots.
 * @returns The anchor, or undefined.
 */
export function recallAnchor(slots: readonly Slot[]): RecallAnchor | undefined {
  let newestTurn: number | undefined;
  let tokensAfter = 0;
  for (let index = slots.length - 1; index >= 0; index -= 1) {
    const slot = slots[index]!;
    if (slot.dropped) continue;
    newestTurn ??= slot.turn;
    if (slot.turn !== newestTurn) return undefined;
    if (slot.kind === 'message' && isTurnStart(slot.anchor)) return { slot: index, tokensAfter };
    tokensAfter += slot.tokens;
  }
  return undefined;
}

/**
 * The allowance of an anchored block: the allowance the turn began with, halved until it is within
 * what the request leaves now (0 once under {@link MIN_ANCHORED_ALLOWANCE}).
 *
 * @param atTurnStart - The allowance the block had on the turn's first call.
 * @param now - The allowance the request leaves now.
 * @returns The allowance to search with.
 */
export function anchoredAllowance(atTurnStart: number, now: number): number {
  const full = Math.max(0, Math.floor(atTurnStart));
  if (full <= now) return full;
  const half = Math.floor(full / 2);
  return half <= now && half >= MIN_ANCHORED_ALLOWANCE ? half : 0;
}

/** How much recall may take in one request. */
export interface RecallRoom {
  allowance: number;
  /** Of it, the rehydration reserve's part. */
  reserveAllowance: number;
  /** Whether it fills free room beyond the reserve (ADR-0162): then `freeRoomTopK` hits. */
  fillsRoom: boolean;
}

/**
 * Recall's room: its share of the rehydration reserve (what rehydration left), or with `fillFreeRoom`
 * (ADR-0162) all the room under the ceiling; anchored at the turn (ADR-0210), the room the turn began
 * with, halved until it fits what is left now.
 *
 * @param parts - The policy, the reserve, rehydration's tokens, the free room now and the anchor.
 * @returns The room.
 */
export function recallRoom(parts: {
  policy: RecallPolicy;
  reserveTokens: number;
  rehydrationTokens: number;
  freeRoom: number;
  anchor: RecallAnchor | undefined;
}): RecallRoom {
  const roomWith = (freeRoom: number): RecallRoom => {
    const reserveAllowance = Math.min(
      Math.floor(parts.reserveTokens * parts.policy.reserveShare),
      parts.reserveTokens - parts.rehydrationTokens,
      freeRoom,
    );
    const fillsRoom = parts.policy.fillFreeRoom === true && freeRoom > reserveAllowance;
    return { allowance: fillsRoom ? freeRoom : reserveAllowance, reserveAllowance, fillsRoom };
  };
  const now = roomWith(parts.freeRoom);
  if (!parts.anchor || parts.anchor.tokensAfter === 0) return now;
  const atTurnStart = roomWith(parts.freeRoom + parts.anchor.tokensAfter);
  const allowance = anchoredAllowance(atTurnStart.allowance, now.allowance);
  return {
    allowance,
    reserveAllowance: Math.min(Math.max(0, atTurnStart.reserveAllowance), allowance),
    fillsRoom: atTurnStart.fillsRoom,
  };
}
