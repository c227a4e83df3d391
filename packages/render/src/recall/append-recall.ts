import { type CompactionPlan, isTurnStart, type RecallPolicy } from '@compactor/core';
import { messageRecallText } from '@compactor/recall';
import type { Slot } from '../plan/slots.js';
import { type RecallRoom, recallAnchor, recallRooms } from './recall-anchor.js';
import type { FittedRecall, RecallReport } from './render-recall.js';

/*
 * Append-only recall (ADR-0276). With `placement: 'turn'` (ADR-0210) the block sits after the newest
 * turn's opening message and moves to the next turn's opening when that turn begins: everything after
 * the old block is written to the cache again, and on a dialogue (a turn per call) every call writes a
 * new block of up to the whole free room. Here every turn of the plan version keeps its block, byte for
 * byte, where it was first sent; a new turn adds a block of only hits not already shown, after its own
 * opening message. Each turn's block is derived from what the turn began with (its opening as the
 * query, the room the request had then), so a render is still a pure function of thread and plan, and
 * the blocks of earlier turns come out the same on every later call of the plan version.
 *
 * The blocks are bounded: each takes at most `appendTurnShare` of the room its epoch began with (at
 * least the recall reserve), and when a new turn finds less than that left while the epoch's blocks
 * hold at least as much, a new epoch starts at that turn: the earlier blocks go (the cache breaks there
 * once, as on every turn before) and the room is shared again. A commit starts afresh too: only turns
 * opened after the plan's `basedOnSeq` (and the newest turn) get blocks, and a new plan breaks the prefix.
 * Together they stay within the room the request has at the high-water mark (ADR-0335), so the
 * messages can grow until the next commit without pushing a block out, which would rewrite all after it.
 */

/** A turn whose opening message is live: where its block goes, and what it began with. */
interface TurnOpening {
  /** Index of the opening message's slot. */
  slot: number;
  /** Tokens of the live slots up to and including the opening (the conversation when the turn began). */
  tokensBefore: number;
  query: string;
}

/** One turn's block, at its opening. */
export interface AppendedBlock {
  slot: number;
  fitted: FittedRecall;
}

/** The recall of one request under the append placement. */
export interface AppendedRecall {
  /** Blocks sent after their turn's opening, in slot order. */
  blocks: AppendedBlock[];
  /** A block at the end, sized to the room left, when the newest turn's own block does not fit now. */
  end: FittedRecall | undefined;
  /** One report for all of them (tokens and hits summed, as sent). */
  report: RecallReport;
}

/** Searches recall with a room, a query and the messages already shown. */
export type SearchRecall = (room: RecallRoom, query: string, exclude: ReadonlySet<string>) => FittedRecall;

/**
 * The append placement's blocks for this request.
 *
 * @param parts - The slots, the plan, the recall policy and reserve, the conversation's room (`limit`:
 *   what the request may spend on messages, rehydration and recall), what it spends now, the newest
 *   turn's query when the caller gives one, and the search.
 * @returns The blocks at their turns, an end block if any, and the report.
 */
export function appendedRecall(parts: {
  slots: readonly Slot[];
  plan: CompactionPlan | null;
  policy: RecallPolicy;
  reserveTokens: number;
  limit: number;
  messageTokens: number;
  rehydrationTokens: number;
  /** The caller's query for the newest turn, if any (else the turn's opening is its query). */
  query: string | undefined;
  /** The query of a block at the end (the caller's, else the thread's newest turn and pending call). */
  endQuery: string;
  search: SearchRecall;
  /**
   * What the blocks of the plan version may hold together (ADR-0335): the room left beside the
   * messages at the high-water mark. Absent: no bound beyond each turn's share.
   */
  headroom?: number;
}): AppendedRecall {
  const { policy, limit } = parts;
  const newest = recallAnchor(parts.slots)?.slot;
  const openings = turnOpenings(parts.slots, parts.plan, newest, parts.query);
  const roomOf = (freeRoom: number) =>
    recallRooms({
      policy,
      reserveTokens: parts.reserveTokens,
      rehydrationTokens: 0,
      freeRoom,
      anchor: undefined,
    }).now;

  // Each turn's block as the turn began (rehydration, which changes per call, is left out: the blocks
  // must come out the same on every call).
  let blocks: AppendedBlock[] = [];
  let used = 0;
  let shown = new Set<string>();
  let epochRoom: number | undefined;
  let newestBlock: AppendedBlock | undefined;
  for (const opening of openings) {
    let free = limit - opening.tokensBefore - used;
    const cap = epochRoom === undefined ? 0 : turnCap(epochRoom, policy);
    // Within the high-water room (ADR-0335) the blocks last until the commit: no epoch starts afresh.
    if (parts.headroom === undefined && epochRoom !== undefined && free < cap && used >= cap) {
      blocks = [];
      used = 0;
      shown = new Set();
      epochRoom = undefined;
      free = limit - opening.tokensBefore;
    }
    epochRoom ??= Math.max(0, free);
    const room = roomOf(free);
    const allowance = Math.min(
      room.allowance,
      Math.max(turnCap(epochRoom, policy), room.reserveAllowance),
      parts.headroom === undefined ? Number.POSITIVE_INFINITY : Math.max(0, parts.headroom - used),
    );
    const fitted = parts.search(
      { ...room, allowance, reserveAllowance: Math.min(room.reserveAllowance, allowance) },
      opening.query,
      shown,
    );
    const block = { slot: opening.slot, fitted };
    if (opening.slot === newest) newestBlock = block;
    if (!fitted.piece) continue;
    blocks.push(block);
    used += fitted.report.tokens;
    shown = new Set([...shown, ...fitted.report.recalled.map((hit) => hit.messageId)]);
  }

  // What this call leaves: the blocks that fit, oldest first (the cached ones); the newest turn's
  // block, if it no longer fits, gives way to a block at the end sized to the room left.
  const available = limit - parts.messageTokens - parts.rehydrationTokens;
  const kept: AppendedBlock[] = [];
  let keptTokens = 0;
  for (const block of blocks) {
    if (keptTokens + block.fitted.report.tokens > available) break;
    kept.push(block);
    keptTokens += block.fitted.report.tokens;
  }
  // No end block when the newest turn's block is sent, or was searched and found nothing new, unless
  // the thread ends in a pending tool call: its name and input search what the turn's opening did not
  // (ADR-0111's query), in the room left. An agent's call follows a result, never a pending call, so
  // that block is not part of the turn's calls.
  const newestDone = newestBlock !== undefined && (!newestBlock.fitted.piece || kept.includes(newestBlock));
  const pendingCall = newestBlock !== undefined && parts.endQuery !== openingQuery(openings, newestBlock);
  let end: FittedRecall | undefined;
  if (!newestDone || pendingCall) {
    const keptShown = new Set(
      kept.flatMap((block) => block.fitted.report.recalled.map((hit) => hit.messageId)),
    );
    const room = roomOf(available - keptTokens);
    end = parts.search(room, parts.endQuery, keptShown);
    if (!end.piece) end = undefined;
  }
  return { blocks: kept, end, report: combinedReport(kept, end, newestBlock, parts.query) };
}

function openingQuery(openings: readonly TurnOpening[], block: AppendedBlock): string | undefined {
  return openings.find((opening) => opening.slot === block.slot)?.query;
}

/** What one turn's block may take: its share of the room the epoch began with. */
function turnCap(epochRoom: number, policy: RecallPolicy): number {
  return Math.floor(Math.max(0, epochRoom) * policy.appendTurnShare);
}

/**
 * The live openings of the turns that get a block: turns opened after the plan's basis, and the
 * newest turn (whose opening may predate it), in slot order.
 */
function turnOpenings(
  slots: readonly Slot[],
  plan: CompactionPlan | null,
  newest: number | undefined,
  newestQuery: string | undefined,
): TurnOpening[] {
  const openings: TurnOpening[] = [];
  let tokens = 0;
  for (const [index, slot] of slots.entries()) {
    if (slot.dropped) continue;
    tokens += slot.tokens;
    if (slot.kind !== 'message' || !isTurnStart(slot.anchor)) continue;
    const afterPlan = plan !== null && slot.anchor.seq > plan.basedOnSeq;
    if (!afterPlan && index !== newest) continue;
    openings.push({
      slot: index,
      tokensBefore: tokens,
      query: index === newest && newestQuery !== undefined ? newestQuery : messageRecallText(slot.anchor),
    });
  }
  return openings;
}

function combinedReport(
  kept: readonly AppendedBlock[],
  end: FittedRecall | undefined,
  newest: AppendedBlock | undefined,
  query: string | undefined,
): RecallReport {
  const parts = [...kept.map((block) => block.fitted), ...(end ? [end] : [])];
  const first = newest?.fitted.report ?? parts[0]?.report;
  const report: RecallReport = {
    attempted: first?.attempted ?? false,
    query: (first?.query ?? query ?? '').slice(0, 200),
    allowance: 0,
    reserveAllowance: 0,
    freeRoomTokens: 0,
    tokens: 0,
    indexed: first?.indexed ?? 0,
    recalled: [],
  };
  for (const part of parts) {
    report.allowance += part.report.allowance;
    report.reserveAllowance += part.report.reserveAllowance;
    report.freeRoomTokens += part.report.freeRoomTokens;
    report.tokens += part.report.tokens;
    report.recalled.push(...part.report.recalled);
  }
  // The newest turn's search held back by the gate (ADR-0320): said, whatever older blocks are kept.
  const skipped = newest?.fitted.report.skipped ?? end?.report.skipped;
  if (skipped) report.skipped = skipped;
  return report;
}
