import { isTurnStart, type RecallPolicy } from '@compactor/core';
import type { Slot } from '../plan/slots.js';

/*
 * Recall anchored at the newest turn (ADR-0210). The recall block is ephemeral; sent after the newest
 * message and sized to the room left, it was rewritten on every call, past the provider's cached
 * prefix. Anchored right after the message that opened the turn and sized from the room the request
 * had when the turn began, it is the same bytes on every call of an agent's turn while it still fits:
 * the calls after the first read it from the cache. When it no longer fits (`turn-halving`: nor the block
 * of half that room), the block goes back to the end, sized to the room left (the old placement: late in
 * a long turn the room, and so the block, is small).
 */

/** Below this many tokens a halved room is not tried. */
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

/** How much recall may take in one request. */
export interface RecallRoom {
  allowance: number;
  /** Of it, the rehydration reserve's part. */
  reserveAllowance: number;
  /** Whether it fills free room beyond the reserve (ADR-0162): then `freeRoomTopK` hits. */
  fillsRoom: boolean;
}

/** Recall's room now, and the rooms an anchored block may take, largest first. */
export interface RecallRooms {
  /** The room the request leaves now: a block sent at the end (ADR-0111, ADR-0162). */
  now: RecallRoom;
  /**
   * Anchored at the turn (ADR-0210): the room the turn began with, then its half; a block searched
   * with one of them is sent at the anchor when it is within `now.allowance`. Empty without an anchor.
   */
  anchored: RecallRoom[];
}

/**
 * Recall's rooms: its share of the rehydration reserve (what rehydration left), or with `fillFreeRoom`
 * (ADR-0162) all the room under the ceiling; anchored at the turn (ADR-0210), also the room the turn
 * began with and its half.
 *
 * @param parts - The policy, the reserve, rehydration's tokens, the free room now and the anchor.
 * @returns The rooms.
 */
export function recallRooms(parts: {
  policy: RecallPolicy;
  reserveTokens: number;
  rehydrationTokens: number;
  freeRoom: number;
  anchor: RecallAnchor | undefined;
  /** Also offer half the turn's room (more calls from the cache, a smaller block than the room left). */
  halve?: boolean;
}): RecallRooms {
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
  if (!parts.anchor || parts.anchor.tokensAfter === 0) return { now, anchored: [] };
  const full = roomWith(parts.freeRoom + parts.anchor.tokensAfter);
  const anchored = [full];
  const half = Math.floor(full.allowance / 2);
  if (parts.halve === true && half >= MIN_ANCHORED_ALLOWANCE)
    anchored.push({ ...full, allowance: half, reserveAllowance: Math.min(full.reserveAllowance, half) });
  return { now, anchored };
}
