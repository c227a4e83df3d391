import type { CompactionPlan } from '@compactor/core';
import { openingFor } from './budget/conversation-opening.js';
import type { PieceMaker } from './plan/piece-maker.js';
import type { Slot } from './plan/slots.js';

export interface AssembledMessages {
  /** Wire messages (or items) in order. */
  messages: unknown[];
  /** Index of the last wire message of the stable prefix, -1 when it holds none. */
  stableEnd: number;
  /** Conversation tokens in the stable prefix. */
  stableTokens: number;
  syntheticMessages: number;
  /** For each slot (dropped ones included), the number of wire messages laid out up to and including it. */
  slotEnds: number[];
}

/**
 * Lay the live slots out as wire messages: the opening (if the provider needs one), then each slot
 * with the results of its calls right after it. The stable prefix is the run of slots whose sources
 * all predate the plan (seq ≤ basedOnSeq): appends and stale events only ever change what follows.
 */
export function assembleMessages(
  slots: readonly Slot[],
  maker: PieceMaker,
  plan: CompactionPlan | null,
): AssembledMessages {
  const format = maker.format;
  const messages: unknown[] = [];
  let first: Slot | undefined;
  for (const slot of slots) {
    if (!slot.dropped) {
      first = slot;
      break;
    }
  }
  const opening = openingFor(first, maker);
  let syntheticMessages = 0;
  if (opening.prepend) {
    for (const wire of opening.prepend.wire) messages.push(wire);
    syntheticMessages += 1;
  }
  let stable = plan !== null;
  let stableEnd = -1;
  let stableTokens = 0;
  const slotEnds: number[] = [];
  for (const slot of slots) {
    if (slot.dropped) {
      slotEnds.push(messages.length);
      continue;
    }
    const piece = slot === first && opening.firstPiece ? opening.firstPiece : slot.piece;
    for (const wire of piece.wire) messages.push(wire);
    if (slot.kind === 'synthetic') syntheticMessages += 1;
    if (slot.results.length > 0) {
      const results: unknown[] = [];
      const followUps: unknown[] = [];
      for (const result of slot.results) {
        results.push(result.piece.wire[0]);
        // A result's media its provider cannot hold in a result come after every result (ADR-0311).
        for (let index = 1; index < result.piece.wire.length; index += 1)
          followUps.push(result.piece.wire[index]);
      }
      for (const wire of format.groupResults(results)) messages.push(wire);
      for (const wire of followUps) messages.push(wire);
    }
    slotEnds.push(messages.length);
    if (stable && plan !== null && slot.maxSeq <= plan.basedOnSeq) {
      stableEnd = messages.length - 1;
      stableTokens += slot.tokens + (slot === first ? opening.extraTokens : 0);
    } else {
      stable = false;
    }
  }
  return { messages, stableEnd, stableTokens, syntheticMessages, slotEnds };
}
