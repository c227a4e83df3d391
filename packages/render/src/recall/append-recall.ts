import { type CompactionPlan, isTurnStart, type RecallPolicy, type ThreadMessage } from '@compactor/core';
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
 * Without that bound, an epoch a restart began holds its blocks within a multiple of that room and does
 * not restart again before the commit (ADR-0435): each restart rewrites everything after the first block.
 * The turn running at the plan's basis keeps the block a call sent while it was the newest, if that block
 * fits a share of the high-water room, outside the epochs; the epoch after it is bounded as a restarted one
 * (ADR-0465).
 */

/** A turn whose opening message is live: where its block goes, and what it began with. */
interface TurnOpening {
  /** Index of the opening message's slot. */
  slot: number;
  /** Tokens of the live slots up to and including the opening (the conversation when the turn began). */
  tokensBefore: number;
  /** The opening message (its text is the query unless the caller gave one for the newest turn). */
  message: ThreadMessage;
  /** The caller's query, for the newest turn. */
  callerQuery: string | undefined;
  /** The turn running at the plan's basis (the last opened at or before it), when asked for. */
  basis: boolean;
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

/**
 * Searches recall with a room, a query and the messages already shown. `excludeKey`, when given, names
 * `exclude` for the search memo (two searches with the same key exclude the same messages), so the memo
 * need not be keyed by the messages themselves (ADR-0341).
 */
export type SearchRecall = (
  room: RecallRoom,
  query: string,
  exclude: ReadonlySet<string>,
  excludeKey?: string,
) => FittedRecall;

/**
 * One turn's step of the blocks' fold (ADR-0305): the state after the turn's block, reached from the
 * state before it by its key (the opening's slot, message, tokens before it and query). The turns of
 * a plan version are folded once each; later calls walk the remembered steps, a map lookup per turn,
 * instead of looking each turn's search up again with the growing set of hits shown before it.
 */
interface AppendStep {
  /** Unique among the steps of its fold memo: names the messages the epoch shows up to this step. */
  id: number;
  /** The step before within the same epoch; undefined at an epoch's first turn. */
  previous: AppendStep | undefined;
  /** This turn's block (no piece when its search found nothing to add). */
  block: AppendedBlock;
  /** Tokens of the epoch's blocks up to and including this one. */
  used: number;
  /** The room the epoch began with. */
  epochRoom: number;
  /** What the turn's search was asked (to ask again when it was not attempted, below). */
  asked: { room: RecallRoom; query: string };
  /** The steps that followed this one, the most recently taken last. */
  next: Map<string, AppendStep>;
  /** This turn started a new epoch: the earlier turns' blocks of the plan version went. */
  restarted: boolean;
  /**
   * What the epoch's blocks may hold together when a restart began it (ADR-0435); undefined for the
   * first epoch of a plan version, and with no bound asked for.
   */
  restartedBound: number | undefined;
  /** Tokens of the live slots up to and including this turn's opening (where its block sits). */
  tokensBefore: number;
  /** When `restarted`: where the first block of the epoch that ended sat (its `tokensBefore`). */
  endedEpochFrom: number | undefined;
  /**
   * The basis turn's block, kept outside the epochs (ADR-0465): the later turns count it as part of the
   * conversation before them, and a restart keeps it.
   */
  basis: boolean;
  /** The basis turn's step this chain starts from, if any (what a restart keeps). */
  anchor: AppendStep | undefined;
}

/** Where the fold starts: one per scope (limit, reserve, policy and what the search depends on). */
interface AppendRoot {
  next: Map<string, AppendStep>;
}

/**
 * The remembered steps of one plan's recall index (a render memo structure): valid while the index
 * and the search it is given stay the same, which the caller's `scope` names.
 */
export interface AppendFolds {
  roots: Map<string, AppendRoot>;
  /** The id the next step gets. */
  nextStepId: number;
  /**
   * The messages shown by the epoch up to one step, the one a search last excluded (ADR-0341): the next
   * turn's step extends it by one block instead of collecting the whole epoch's hits again.
   */
  shown: { step: AppendStep; ids: Set<string> } | undefined;
}

/** Scopes remembered per plan index (a budget and a policy are usually one). */
const APPEND_ROOTS = 4;
/**
 * Branches remembered per step: the one every call of the plan version takes, and a few variants
 * (a caller's query for the newest turn, a newest turn whose opening sits at another count).
 */
const APPEND_BRANCHES = 4;

/** An empty fold memo, kept beside a plan's recall index. */
export function createAppendFolds(): AppendFolds {
  return { roots: new Map(), nextStepId: 0, shown: undefined };
}

function remembered<T>(map: Map<string, T>, key: string, bound: number, make: () => T): T {
  let value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
  } else {
    value = make();
    if (map.size >= bound) map.delete(map.keys().next().value as string);
  }
  map.set(key, value);
  return value;
}

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
   * Remembered steps, and the scope naming everything `search` depends on besides its arguments
   * (ADR-0305); without them every turn is searched (or looked up in the search memo) again.
   */
  memo?: { folds: AppendFolds; scope: string };
  /**
   * What the blocks of the plan version may hold together (ADR-0335): the room left beside the
   * messages at the high-water mark. Absent: no bound beyond each turn's share.
   */
  headroom?: number;
  /**
   * What the blocks of an epoch a restart began may hold together (ADR-0435): within it no further
   * epoch starts before the next commit. Absent: restarts as often as the room runs out (ADR-0276).
   */
  restartedBound?: number;
  /**
   * What the block of the turn running at the plan's basis may hold to be kept once the next turn opens,
   * outside the epochs (ADR-0465): the room the request has beside the messages at the high-water mark,
   * times `appendBasisWithinHighWater`. Absent: that block goes when the next turn opens (ADR-0276), or,
   * with `appendKeepsBasisTurn`, stays as the epoch's first (ADR-0360).
   */
  basisBound?: number;
}): AppendedRecall {
  const { policy, limit } = parts;
  const newest = recallAnchor(parts.slots)?.slot;
  const basisBound = policy.appendKeepsBasisTurn ? undefined : parts.basisBound;
  const openings = turnOpenings(
    parts.slots,
    parts.plan,
    newest,
    parts.query,
    policy.appendKeepsBasisTurn || basisBound !== undefined,
    basisBound !== undefined,
  );
  const roomOf = (freeRoom: number) =>
    recallRooms({
      policy,
      reserveTokens: parts.reserveTokens,
      rehydrationTokens: 0,
      freeRoom,
      anchor: undefined,
    }).now;

  // Each turn's block as the turn began (rehydration, which changes per call, is left out: the blocks
  // must come out the same on every call), folded over the turns in order.
  const step = (before: AppendStep | undefined, opening: TurnOpening): AppendStep => {
    // The basis turn's kept block stands outside the epochs (ADR-0465): a turn after it starts the first
    // epoch, counting the block as conversation, and a restart keeps it.
    const anchor = before?.basis ? before : before?.anchor;
    const anchorTokens = anchor ? anchor.block.fitted.report.tokens : 0;
    const inEpoch = before !== undefined && !before.basis ? before : undefined;
    let previous = before;
    let used = inEpoch?.used ?? 0;
    let free = limit - opening.tokensBefore - anchorTokens - used;
    let restarted = false;
    // After a kept basis block the first epoch is held as a restarted one is (ADR-0435), the block within
    // the bound: unbounded, its blocks beside the basis block were pushed out near the high-water mark.
    let restartedBound =
      before?.basis && parts.restartedBound !== undefined
        ? Math.max(0, parts.restartedBound - anchorTokens)
        : inEpoch?.restartedBound;
    let endedEpochFrom: number | undefined;
    if (inEpoch !== undefined) {
      const cap = turnCap(inEpoch.epochRoom, policy);
      // Within the high-water room (ADR-0335), or in an epoch a restart began under its bound (ADR-0435),
      // the blocks last until the commit: no epoch starts afresh.
      if (parts.headroom === undefined && restartedBound === undefined && free < cap && used >= cap) {
        previous = anchor;
        used = 0;
        free = limit - opening.tokensBefore - anchorTokens;
        restarted = true;
        restartedBound = parts.restartedBound;
        endedEpochFrom = blockSteps(inEpoch).find((at) => !at.basis)?.tokensBefore;
      }
    }
    const epochRoom = previous !== undefined && !previous.basis ? previous.epochRoom : Math.max(0, free);
    const room = roomOf(free);
    const allowance = Math.min(
      room.allowance,
      Math.max(turnCap(epochRoom, policy), room.reserveAllowance),
      parts.headroom === undefined
        ? Number.POSITIVE_INFINITY
        : Math.max(0, parts.headroom - anchorTokens - used),
      restartedBound === undefined ? Number.POSITIVE_INFINITY : Math.max(0, restartedBound - used),
    );
    const asked = {
      room: { ...room, allowance, reserveAllowance: Math.min(room.reserveAllowance, allowance) },
      query: queryOf(opening),
    };
    const fitted = parts.search(asked.room, asked.query, ...exclusion(previous));
    const tokens = fitted.piece ? fitted.report.tokens : 0;
    // Kept once the next turn opens only if it fits beside the messages up to the high-water mark.
    const basis = opening.basis && basisBound !== undefined && tokens > 0 && tokens <= basisBound;
    return {
      id: stepIds++,
      previous,
      block: { slot: opening.slot, fitted },
      used: basis ? 0 : used + tokens,
      epochRoom,
      asked,
      next: new Map(),
      restarted,
      restartedBound,
      tokensBefore: opening.tokensBefore,
      endedEpochFrom,
      basis,
      anchor: basis ? undefined : anchor,
    };
  };
  const memo = parts.memo;
  // Steps made without a fold memo live for this call only: their ids name nothing beyond it, so their
  // searches are keyed by the messages they exclude.
  let stepIds = memo ? memo.folds.nextStepId : 0;
  const exclusion = (step: AppendStep | undefined): [ReadonlySet<string>, string?] => {
    const ids = shownBy(step, memo?.folds);
    return memo && step ? [ids, `${step.id}`] : [ids];
  };
  let at: { next: Map<string, AppendStep> } | undefined = memo
    ? remembered(
        memo.folds.roots,
        // Everything a step reads besides the turn itself: the limit, the reserve, the bounds and the scope.
        `${limit}\u0000${parts.reserveTokens}\u0000${parts.headroom ?? ''}\u0000${parts.restartedBound ?? ''}\u0000${basisBound ?? ''}\u0000${memo.scope}`,
        APPEND_ROOTS,
        () => ({
          next: new Map(),
        }),
      )
    : undefined;
  let last: AppendStep | undefined;
  let newestBlock: AppendedBlock | undefined;
  let newestRestarted = false;
  let newestEndedEpochFrom: number | undefined;
  for (const opening of openings) {
    const before = last;
    const taken = at
      ? remembered(at.next, stepKey(opening), APPEND_BRANCHES, () => step(before, opening))
      : step(before, opening);
    // A basis turn's block too large to keep goes once the next turn opens, as without the option.
    if (basisBound !== undefined && opening.basis && opening.slot !== newest && !taken.basis) continue;
    last = taken;
    at = at ? last : undefined;
    if (opening.slot === newest) {
      newestBlock = last.block;
      newestRestarted = last.restarted;
      newestEndedEpochFrom = last.endedEpochFrom;
    }
  }
  if (memo) memo.folds.nextStepId = stepIds;
  // A search not attempted (no room) reports the request's own query, which a remembered step does
  // not know: the newest turn's is asked again (no index search; it adds no block either way).
  if (memo && last && newestBlock === last.block && !last.block.fitted.report.attempted) {
    newestBlock = {
      slot: last.block.slot,
      fitted: parts.search(last.asked.room, last.asked.query, ...exclusion(last.previous)),
    };
  }
  const steps = blockSteps(last);

  // What this call leaves: the blocks that fit, oldest first (the cached ones); the newest turn's
  // block, if it no longer fits, gives way to a block at the end sized to the room left.
  const available = limit - parts.messageTokens - parts.rehydrationTokens;
  const kept: AppendedBlock[] = [];
  let keptTokens = 0;
  let lastKept: AppendStep | undefined;
  for (const step of steps) {
    if (keptTokens + step.block.fitted.report.tokens > available) break;
    kept.push(step.block);
    keptTokens += step.block.fitted.report.tokens;
    lastKept = step;
  }
  // No end block when the newest turn's block is sent, or was searched and found nothing new, unless
  // the thread ends in a pending tool call: its name and input search what the turn's opening did not
  // (ADR-0111's query), in the room left. An agent's call follows a result, never a pending call, so
  // that block is not part of the turn's calls.
  const newestDone = newestBlock !== undefined && (!newestBlock.fitted.piece || kept.includes(newestBlock));
  const pendingCall = newestBlock !== undefined && parts.endQuery !== openingQuery(openings, newestBlock);
  // The newest turn's block no longer fits: the block that replaces it stays where it was first sent
  // (ADR-0390), so the turn's later calls append after it instead of rewriting a block at the end. Only
  // while every older block of the epoch is sent (else the prefix breaks before it anyway).
  const replaced =
    !newestDone &&
    !pendingCall &&
    last !== undefined &&
    newestBlock === last.block &&
    kept.length === steps.length - 1
      ? last
      : undefined;
  const candidate = replaced
    ? movedBlock({
        slots: parts.slots,
        opening: replaced.block.slot,
        keptTokens,
        limit,
        share: policy.appendMovedShare,
        firstTokens: replaced.block.fitted.report.tokens,
        roomOf,
        // The newest turn's own search, with another room: the same query and exclusions.
        search: (room) => parts.search(room, replaced.asked.query, ...exclusion(replaced.previous)),
      })
    : undefined;
  // It must fit now: rehydration, which the blocks leave out, may take the room.
  const moved =
    candidate !== undefined && candidate.fitted.report.tokens <= available - keptTokens
      ? candidate
      : undefined;
  const blocks = moved ? [...kept, moved] : kept;
  let end: FittedRecall | undefined;
  if (!moved && (!newestDone || pendingCall)) {
    // The kept blocks are the epoch's oldest: what they show is what the epoch shows up to the last one.
    const room = roomOf(available - keptTokens);
    end = parts.search(room, parts.endQuery, ...exclusion(lastKept));
    if (!end.piece) end = undefined;
  }
  const report = combinedReport(blocks, end, newestBlock, parts.query);
  // What the engine's check reads (ADR-0361): blocks left out now, a new epoch at the newest turn (its
  // earlier blocks went). Either rewrites everything after the first block that went, whose place the
  // check prices (ADR-0430).
  const leftOutSteps = steps.slice(kept.length);
  const leftOut = leftOutSteps.reduce((total, left) => total + left.block.fitted.report.tokens, 0);
  if (leftOut > 0) report.leftOutTokens = leftOut;
  if (newestRestarted) report.epochRestarted = true;
  const wentFrom = Math.min(
    leftOutSteps[0]?.tokensBefore ?? Number.POSITIVE_INFINITY,
    (newestRestarted ? newestEndedEpochFrom : undefined) ?? Number.POSITIVE_INFINITY,
  );
  if (Number.isFinite(wentFrom)) report.leftOutFromTokens = wentFrom;
  return { blocks, end, report };
}

/**
 * The block that stands in for the newest turn's own block once that no longer fits (ADR-0390), derived
 * from the turn's slots alone so that every later call finds the same one: walking the turn from its
 * opening, the block in place (first the turn's own) stops fitting at the first slot whose conversation,
 * with the older blocks and itself, exceeds the limit; the next block goes at the first place after it
 * where a call is made (before an assistant message, never between a tool call and its result) and is
 * searched with `share` of the room left there, so it lasts while the messages grow into the rest.
 *
 * @returns The block in place at the newest slot, or undefined when the block in place stopped fitting
 *   and no place for the next has come yet, when a search found nothing, or when `share` is 0.
 */
function movedBlock(parts: {
  slots: readonly Slot[];
  /** The newest turn's opening slot. */
  opening: number;
  /** Tokens of the older blocks of the epoch, all sent. */
  keptTokens: number;
  limit: number;
  share: number;
  /** Tokens of the turn's own block. */
  firstTokens: number;
  roomOf: (freeRoom: number) => RecallRoom;
  search: (room: RecallRoom) => FittedRecall;
}): AppendedBlock | undefined {
  const { slots, keptTokens, limit, share } = parts;
  if (share <= 0) return undefined;
  let tokens = 0;
  for (let index = 0; index <= parts.opening; index += 1) {
    const slot = slots[index]!;
    if (!slot.dropped) tokens += slot.tokens;
  }
  let resident = parts.firstTokens;
  let block: AppendedBlock | undefined;
  let due = false;
  for (let index = parts.opening + 1; index < slots.length; index += 1) {
    const slot = slots[index]!;
    if (slot.dropped) continue;
    tokens += slot.tokens;
    if (!due && tokens + keptTokens + resident > limit) due = true;
    if (!due || !callFollows(slots, index)) continue;
    const room = parts.roomOf(limit - tokens - keptTokens);
    const allowance = Math.floor(room.allowance * share);
    const fitted = parts.search({
      ...room,
      allowance,
      reserveAllowance: Math.min(room.reserveAllowance, allowance),
    });
    if (!fitted.piece) return undefined;
    block = { slot: index, fitted };
    resident = fitted.report.tokens;
    due = false;
  }
  return due ? undefined : block;
}

/**
 * Whether a call of the agent may follow the slot: the next live slot, if any, is the agent's message. A
 * slot carries the results of its tool calls, so a block after it splits no call from its result.
 */
function callFollows(slots: readonly Slot[], index: number): boolean {
  for (let next = index + 1; next < slots.length; next += 1) {
    const slot = slots[next]!;
    if (slot.dropped) continue;
    return slot.kind === 'message' && slot.anchor.role === 'assistant';
  }
  return true;
}

/** A turn's query: the caller's for the newest turn, else its opening's text. */
function queryOf(opening: TurnOpening): string {
  return opening.callerQuery ?? messageRecallText(opening.message);
}

/** What names a turn's step: where and what its opening is, the conversation before it, its query. */
function stepKey(opening: TurnOpening): string {
  return `${opening.slot}\u0000${opening.message.id}\u0000${opening.tokensBefore}\u0000${opening.callerQuery ?? ''}\u0000${opening.basis ? 'b' : ''}`;
}

/**
 * The messages the epoch's blocks up to `step` show (excluded from the next turn's search). With a fold
 * memo, the set last collected is kept and extended by one step when the next turn asks for its
 * successor (ADR-0341): a call searching a new turn adds that turn's predecessor's hits, not the epoch's.
 * A set handed out is only ever added to (the recall index relies on it, ADR-0342).
 */
function shownBy(step: AppendStep | undefined, folds: AppendFolds | undefined): ReadonlySet<string> {
  if (step === undefined) return new Set();
  const kept = folds?.shown;
  if (kept?.step === step) return kept.ids;
  if (kept !== undefined && kept.step === step.previous) {
    // The kept set is no longer needed for the step before: it becomes this step's.
    addHits(kept.ids, step);
    kept.step = step;
    return kept.ids;
  }
  const ids = new Set<string>();
  for (let at: AppendStep | undefined = step; at; at = at.previous) addHits(ids, at);
  if (folds) folds.shown = { step, ids };
  return ids;
}

function addHits(ids: Set<string>, step: AppendStep): void {
  if (!step.block.fitted.piece) return;
  for (const hit of step.block.fitted.report.recalled) ids.add(hit.messageId);
}

/** The epoch's steps whose block has a piece, oldest first. */
function blockSteps(step: AppendStep | undefined): AppendStep[] {
  const steps: AppendStep[] = [];
  for (let at = step; at; at = at.previous) if (at.block.fitted.piece) steps.push(at);
  return steps.reverse();
}

function openingQuery(openings: readonly TurnOpening[], block: AppendedBlock): string | undefined {
  const opening = openings.find((candidate) => candidate.slot === block.slot);
  return opening && queryOf(opening);
}

/** What one turn's block may take: its share of the room the epoch began with. */
function turnCap(epochRoom: number, policy: RecallPolicy): number {
  return Math.floor(Math.max(0, epochRoom) * policy.appendTurnShare);
}

/**
 * The live openings of the turns that get a block: turns opened after the plan's basis, and the
 * newest turn (whose opening may predate it), in slot order; with `keepBasisTurn` (ADR-0360) also the
 * turn running at the plan's basis (the last opened at or before it), so that its block, sent while
 * it was the newest turn, stays when the next turn opens.
 */
function turnOpenings(
  slots: readonly Slot[],
  plan: CompactionPlan | null,
  newest: number | undefined,
  newestQuery: string | undefined,
  keepBasisTurn: boolean,
  requireCall = false,
): TurnOpening[] {
  let basisTurn = -1;
  if (keepBasisTurn && plan !== null) {
    for (const [index, slot] of slots.entries()) {
      if (slot.dropped || slot.kind !== 'message' || !isTurnStart(slot.anchor)) continue;
      if (slot.anchor.seq > plan.basedOnSeq) break;
      basisTurn = index;
    }
    if (basisTurn >= 0 && requireCall && !calledUnderPlan(slots, basisTurn, plan.basedOnSeq)) basisTurn = -1;
  }
  const openings: TurnOpening[] = [];
  let tokens = 0;
  for (const [index, slot] of slots.entries()) {
    if (slot.dropped) continue;
    tokens += slot.tokens;
    if (slot.kind !== 'message' || !isTurnStart(slot.anchor)) continue;
    const afterPlan = plan !== null && slot.anchor.seq > plan.basedOnSeq;
    if (!afterPlan && index !== newest && index !== basisTurn) continue;
    openings.push({
      slot: index,
      tokensBefore: tokens,
      message: slot.anchor,
      callerQuery: index === newest ? newestQuery : undefined,
      basis: index === basisTurn && !afterPlan,
    });
  }
  return openings;
}

/**
 * Whether the agent made a call under the plan while the turn opened at `opening` was the newest: an
 * assistant message of that turn after the plan's basis. Only then was its block sent under this plan,
 * so that keeping it saves a break (ADR-0465).
 */
function calledUnderPlan(slots: readonly Slot[], opening: number, basedOnSeq: number): boolean {
  for (let index = opening + 1; index < slots.length; index += 1) {
    const slot = slots[index]!;
    if (slot.dropped || slot.kind !== 'message') continue;
    if (isTurnStart(slot.anchor)) return false;
    if (slot.anchor.role === 'assistant' && slot.anchor.seq > basedOnSeq) return true;
  }
  return false;
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
