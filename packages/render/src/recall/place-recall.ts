import type { RecallPolicy, ThreadKind } from '@compactor/core';
import type { Piece } from '../cache/render-cache.js';
import type { AppendedRecall } from './append-recall.js';
import type { RecallAnchor, RecallRoom } from './recall-anchor.js';
import type { FittedRecall, RecallReport } from './render-recall.js';

/** Where a request's recall blocks go: inside the conversation at wire positions, and at the end. */
export interface PlacedRecall {
  /** Blocks spliced in before the wire message at `at` (after a turn's opening). */
  inside: { at: number; wire: readonly unknown[] }[];
  /** A block after the newest message and the rehydrated artifacts. */
  end: Piece | undefined;
  report: RecallReport;
}

/**
 * The placement a render uses: `auto` (ADR-0276) is `append` on a coding thread (a turn spans many
 * calls and few turns share a plan version: blocks kept in place cost a cache read, not a write) and
 * `turn` otherwise (a dialogue opens a turn on every call with a new question, whose block needs the
 * room that kept blocks would take: measured, LoCoMo 4× early evidence 77.1% → 64.4% under `append`).
 *
 * @param placement - The policy's placement.
 * @param kind - The thread's kind (it decides `auto`).
 * @returns A concrete placement.
 */
export function recallPlacement(
  placement: RecallPolicy['placement'],
  kind: ThreadKind,
): Exclude<RecallPolicy['placement'], 'auto'> {
  if (placement !== 'auto') return placement;
  return kind === 'coding' ? 'append' : 'turn';
}

/**
 * Whether recall searches only when the newest turn asks something (ADR-0320): `auto` is `question` on
 * a dialogue (every call opens a turn, so a block is written uncached on every call, and most turns are
 * talk no recall serves) and `always` otherwise (an agent's turn is an instruction whose block is read
 * on the turn's many calls).
 *
 * @param gate - The policy's gate.
 * @param kind - The thread's kind (it decides `auto`).
 * @returns True when recall waits for a question.
 */
export function recallOnlyWhenAsked(gate: RecallPolicy['gate'], kind: ThreadKind): boolean {
  if (gate !== 'auto') return gate === 'question';
  return kind === 'dialogue';
}

/**
 * ADR-0210's placement: the turn's block (of the room the turn began with, then its half) at the turn's
 * opening while it fits the room left, else a block at the end sized to the room left.
 *
 * @param anchoredRooms - The rooms an anchored block may take, largest first (empty: none).
 * @param now - The room the request leaves now.
 * @param recallWith - Searches with a room.
 * @param anchor - The newest turn's opening, if live.
 * @param slotEnds - Wire messages laid out up to and including each slot.
 * @param messageCount - Wire messages of the conversation.
 * @returns The placed block.
 */
export function placeAnchored(
  anchoredRooms: readonly RecallRoom[],
  now: RecallRoom,
  recallWith: (room: RecallRoom) => FittedRecall,
  anchor: RecallAnchor | undefined,
  slotEnds: readonly number[],
  messageCount: number,
): PlacedRecall {
  let recall: FittedRecall | undefined;
  let anchored = false;
  for (const room of anchoredRooms) {
    const candidate = recallWith(room);
    if (candidate.piece && candidate.report.tokens <= now.allowance) {
      recall = candidate;
      anchored = true;
      break;
    }
  }
  recall ??= recallWith(now);
  const piece = recall.piece;
  const at = anchor && anchored && piece ? slotEnds[anchor.slot]! : messageCount;
  if (piece && at < messageCount)
    return { inside: [{ at, wire: piece.wire }], end: undefined, report: recall.report };
  return { inside: [], end: piece, report: recall.report };
}

/**
 * ADR-0276's placement: every kept block after its turn's opening (the newest turn's too, even when its
 * opening is the newest message: the block stays there on the turn's later calls and after), and the
 * end block, if any, after everything.
 *
 * @param appended - The blocks.
 * @param slotEnds - Wire messages laid out up to and including each slot.
 * @returns The placed blocks.
 */
export function placeAppended(appended: AppendedRecall, slotEnds: readonly number[]): PlacedRecall {
  return {
    inside: appended.blocks.map((block) => ({ at: slotEnds[block.slot]!, wire: block.fitted.piece!.wire })),
    end: appended.end?.piece,
    report: appended.report,
  };
}
