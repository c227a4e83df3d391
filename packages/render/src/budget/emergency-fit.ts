import { type CompactionPolicy, type CurrentDeterminism, clearability } from '@compactor/core';
import type { PieceMaker } from '../plan/piece-maker.js';
import { envelopePlaceholder, type Slot } from '../plan/slots.js';
import { openingFor } from './conversation-opening.js';

/** A slot the emergency fit dropped: a message (with its results), a summary or a pointer. */
export interface EmergencyDrop {
  /** The log message the dropped slot stood at. */
  messageId: string;
  kind: 'message' | 'summary' | 'externalization';
  turn: number;
  /** Tokens the dropped slot held (a dropped summary's whole size). */
  tokens: number;
  /** Results that went with it. */
  resultMessageIds: string[];
}

/** What the emergency fit did, for the report: the worker should compact properly. */
export interface EmergencyFitReport {
  /** Tokens over the limit before the fit. */
  overBy: number;
  tokensFreed: number;
  clearedResults: { messageId: string; toolCallId: string; toolName: string }[];
  /**
   * What of the protected tail was cut to head and tail because even the newest exchange did not fit:
   * tool results, and harness-injected (synthetic) user messages such as shell output. A person's own
   * words are never cut.
   */
  truncatedResults: {
    kind: 'tool_result' | 'synthetic_message';
    messageId: string;
    toolCallId?: string;
    toolName?: string;
    fromTokens: number;
    toTokens: number;
  }[];
  dropped: EmergencyDrop[];
}

export interface EmergencyFitInput {
  slots: Slot[];
  /** Tokens the conversation may use (ceiling − system − tools − formatting). */
  limit: number;
  /** Index of the first protected slot; nothing from there on is touched. */
  tailStart: number;
  maker: PieceMaker;
  policy: CompactionPolicy;
  /** Replayable sources verified by the runtime's hooks (ADR-0193); absent, none is verified. */
  currentDeterminism?: CurrentDeterminism | undefined;
}

/**
 * Tokens of the live slots plus what opening the conversation validly costs.
 *
 * @param slots - The rendered slots; dropped ones are not counted.
 * @param maker - Formats and counts the opening a provider may need.
 * @returns The conversation's tokens.
 */
export function conversationTokens(slots: readonly Slot[], maker: PieceMaker): number {
  let total = 0;
  let first: Slot | undefined;
  for (const slot of slots) {
    if (slot.dropped) continue;
    first ??= slot;
    total += slot.tokens;
  }
  return total + openingFor(first, maker).extraTokens;
}

/**
 * Deterministic last resort when the conversation is over its limit (a stale plan, a burst of
 * events): outside the protected tail, clear the tool results core's `clearability` allows oldest
 * first (a replayable result only when `currentDeterminism` proves its source unchanged),
 * then drop the oldest whole turns (pinned and system messages, the user's own messages and plan summaries are kept until
 * every other slot is gone, then go oldest first). Calls and results live in one slot, so nothing
 * is ever orphaned. O(slots) with cached counts. The caller has checked that the tail fits.
 */
export function emergencyFit({
  slots,
  limit,
  tailStart,
  maker,
  policy,
  currentDeterminism,
}: EmergencyFitInput): EmergencyFitReport | undefined {
  let total = 0;
  for (const slot of slots) if (!slot.dropped) total += slot.tokens;
  let first = 0;
  const over = () => {
    while (first < slots.length && slots[first]!.dropped) first += 1;
    return total + openingFor(slots[first], maker).extraTokens - limit;
  };
  const overBy = over();
  if (overBy <= 0) return undefined;
  const startTotal = total;
  const report: EmergencyFitReport = {
    overBy,
    tokensFreed: 0,
    clearedResults: [],
    truncatedResults: [],
    dropped: [],
  };
  const done = () => {
    report.tokensFreed = startTotal - total;
    return report;
  };

  for (let index = 0; index < tailStart; index += 1) {
    const slot = slots[index]!;
    for (const result of slot.results) {
      if (
        result.state !== 'raw' ||
        !result.part ||
        !clearability(result.part, policy.toolDurability, currentDeterminism)
      )
        continue;
      const placeholder = envelopePlaceholder(maker, result.part, result.exchange, policy);
      const saving = result.piece.tokens - placeholder.tokens;
      if (saving <= 0) continue;
      result.piece = placeholder;
      result.state = 'cleared';
      slot.tokens -= saving;
      total -= saving;
      report.clearedResults.push({
        messageId: result.message!.id,
        toolCallId: result.part.toolCallId,
        toolName: result.part.toolName,
      });
      if (over() <= 0) return done();
    }
  }

  const drop = (slot: Slot) => {
    slot.dropped = true;
    total -= slot.tokens;
    report.dropped.push({
      messageId: slot.anchor.id,
      kind:
        slot.kind === 'message'
          ? 'message'
          : slot.record?.kind === 'externalize'
            ? 'externalization'
            : 'summary',
      turn: slot.turn,
      tokens: slot.tokens,
      resultMessageIds: slot.results.flatMap((result) => (result.message ? [result.message.id] : [])),
    });
  };
  let index = 0;
  while (index < tailStart) {
    const turn = slots[index]!.turn;
    while (index < tailStart && slots[index]!.turn === turn) {
      const slot = slots[index]!;
      if (!slot.essential) drop(slot);
      index += 1;
    }
    if (over() <= 0) return done();
  }
  for (index = 0; index < tailStart; index += 1) {
    const slot = slots[index]!;
    if (slot.dropped) continue;
    drop(slot);
    if (over() <= 0) return done();
  }
  return done();
}
