import type { NormalizedPlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { CompactionRecord } from '../plan/records.js';
import { holdsOpaquePart } from '../schemas/content.js';
import { sameMessageArrays } from '../thread/fold.js';
import { isTurnStart, type Thread, type ThreadMessage } from '../thread/thread.js';
import { hasNamedSpeakers, type ThreadKind, threadKindOf } from '../thread/thread-kind.js';
import { buildToolPairIndex, closeOverToolPairs, type ToolPairIndex } from '../thread/tool-pairs.js';
import { type TurnRange, turnRanges } from '../thread/turns.js';
import { carriesInstruction } from './kept-user-words.js';
import { editedFrom, normalizedPlanOf } from './plan-edit.js';

/**
 * What one planning run reads of its thread again and again, derived once for the run and shared by
 * every rung and step (ADR-0280): the tool-pair index, the turns, the pinned messages, the thread's kind,
 * each plan's normalization. Everything is a pure function of the thread's messages (and of the plan
 * object, for `normalized`), built on first use, so a run that never asks pays nothing. A run owns its
 * index: nothing here outlives the run, so a thread extended by later events gets a fresh one.
 */
export interface PlanningIndex {
  readonly thread: Thread;
  readonly byId: ReadonlyMap<string, ThreadMessage>;
  /** A message id's position in the log; undefined for an id not in the thread. */
  positionOf(id: string): number | undefined;
  readonly toolPairs: ToolPairIndex;
  readonly turnRanges: readonly TurnRange[];
  /** Pinned and system messages and those holding an opaque part, with their tool-call partners. */
  readonly pinned: ReadonlySet<string>;
  /** Real user turn starts (`isTurnStart`), in log order. */
  readonly turnStarts: readonly ThreadMessage[];
  readonly turnStartIds: ReadonlySet<string>;
  /** 1 at the log position of each real user turn start. */
  readonly turnStartAt: Uint8Array;
  readonly kind: ThreadKind;
  readonly namedSpeakers: boolean;
  /** `normalizePlan(plan)`, once per plan object (plans are never edited in place). */
  normalized(plan: CompactionPlan): NormalizedPlan;
  /**
   * The earliest index the messages from `start` on pull in through their tool pairs (`start` when none
   * is earlier): where a tail starting at `start` must start so no call is cut from its result.
   */
  partnersEdge(start: number): number;
  /** `carriesInstruction(message)`, once per message. */
  carriesInstruction(message: ThreadMessage): boolean;
  /** The log positions of a record's ids, in its order (-1 for an id not in the thread), once per record. */
  recordPositions(record: CompactionRecord): Int32Array;
  /** Tells the index a record's positions (a merged summary block's, known from merging two spans). */
  rememberPositions(record: CompactionRecord, positions: Int32Array): void;
  /**
   * Per turn range (`turnRanges`, same order), how many of its messages the plan summarizes or drops: a
   * turn whose every message is counted offers nothing to a summary or a drop. Once per plan object; a
   * plan `editPlan` made from one counted here is counted from its parent's counts and the records the
   * two normalizations do not share, so a step reads the records it changed, not the hidden history.
   */
  hiddenPerTurn(plan: CompactionPlan): Uint32Array;
  /** 1 at each log position the plan summarizes or drops (kept with `hiddenPerTurn`, the same way). */
  hiddenAt(plan: CompactionPlan): Uint8Array;
}

/**
 * Record positions a planning run read, for the renderer's measurement of the same thread (ADR-0388): each
 * with the message array they index, so a record seen with another thread object (the next check's, or a
 * branch) is never read by stale positions.
 */
const knownPositions = new WeakMap<
  CompactionRecord,
  { readonly messages: readonly ThreadMessage[]; readonly positions: Int32Array }
>();

/**
 * A record's positions in `messages` (its ids' log positions in its order, -1 for an id not there), when a
 * planning run of that very message array (or of its `withOwnMessages` copy, while the two are equal,
 * ADR-0416) has read them: a merged summary block names most of the hidden history, and its positions are
 * known from merging its parts.
 *
 * @param record - A record of a plan over `messages`.
 * @param messages - The thread's messages (compared by identity).
 * @returns The positions, or undefined when no run of this array knows them.
 */
export function knownRecordPositions(
  record: CompactionRecord,
  messages: readonly ThreadMessage[],
): Int32Array | undefined {
  const known = knownPositions.get(record);
  return known && sameMessageArrays(known.messages, messages) ? known.positions : undefined;
}

/** The actions whose messages a summary or a drop may no longer take (already summarized or dropped). */
function hidesWholly(record: CompactionRecord): boolean {
  return record.kind === 'summarize' || record.kind === 'drop';
}

/**
 * Open the index of one planning run.
 *
 * @param thread - The thread planned.
 * @returns Its index, each part built on first use.
 */
export function createPlanningIndex(thread: Thread): PlanningIndex {
  const messages = thread.messages;
  const lazy = <T>(build: () => T): (() => T) => {
    let value: T | undefined;
    let built = false;
    return () => {
      if (!built) {
        value = build();
        built = true;
      }
      return value as T;
    };
  };
  const byId = lazy(() => new Map(messages.map((message) => [message.id, message])));
  // Positions are read through the messages themselves: one map instead of two.
  const positionOf = (id: string) => byId().get(id)?.index;
  const toolPairs = lazy(() => buildToolPairIndex(messages));
  const turnsOf = lazy(() => turnRanges(messages));
  const pinned = lazy(() =>
    closeOverToolPairs(
      messages
        .filter((message) => message.pinned === true || message.role === 'system' || holdsOpaquePart(message))
        .map((message) => message.id),
      toolPairs(),
    ),
  );
  const turnStarts = lazy(() => messages.filter((message) => isTurnStart(message)));
  const turnStartIds = lazy(() => new Set(turnStarts().map((message) => message.id)));
  const turnStartAt = lazy(() => {
    const at = new Uint8Array(messages.length);
    for (const message of turnStarts()) at[message.index] = 1;
    return at;
  });
  const kind = lazy(() => threadKindOf(messages));
  const namedSpeakers = lazy(() => hasNamedSpeakers(messages));
  const normalizations = new WeakMap<CompactionPlan, NormalizedPlan>();
  const edges = new Map<number, number>();
  const instructions = new Map<string, boolean>();
  const positionsOfRecords = new WeakMap<CompactionRecord, Int32Array>();
  const recordPositions = (record: CompactionRecord) => {
    let positions = positionsOfRecords.get(record);
    if (!positions) {
      const ids = record.span.messageIds;
      positions = new Int32Array(ids.length);
      for (let at = 0; at < ids.length; at += 1) positions[at] = positionOf(ids[at]!) ?? -1;
      positionsOfRecords.set(record, positions);
      knownPositions.set(record, { messages, positions });
    }
    return positions;
  };
  const rangeOfPosition = lazy(() => {
    const ranges = new Int32Array(messages.length);
    for (const [at, range] of turnsOf().entries()) ranges.fill(at, range.start, range.end);
    return ranges;
  });
  // Per plan: which positions it summarizes or drops, and how many per turn range (an id a record names
  // twice, or two records share, counts once).
  const hiddenByPlan = new WeakMap<CompactionPlan, { hidden: Uint8Array; perTurn: Uint32Array }>();
  const mark = (state: { hidden: Uint8Array; perTurn: Uint32Array }, record: CompactionRecord, on: 0 | 1) => {
    const ranges = rangeOfPosition();
    for (const position of recordPositions(record)) {
      if (position < 0 || state.hidden[position] === on) continue;
      state.hidden[position] = on;
      state.perTurn[ranges[position]!]! += on === 1 ? 1 : -1;
    }
  };
  const hiddenState = (plan: CompactionPlan): { hidden: Uint8Array; perTurn: Uint32Array } => {
    let state = hiddenByPlan.get(plan);
    if (state) return state;
    const records = normalized(plan).records;
    const parent = editedFrom(plan);
    const parentState = parent && hiddenByPlan.get(parent);
    if (parent && parentState) {
      // A record in both normalizations owns the same ids in both: only the others change what is hidden.
      state = { hidden: parentState.hidden.slice(), perTurn: parentState.perTurn.slice() };
      const before = normalized(parent).records;
      const now = new Set(records);
      const was = new Set(before);
      for (const record of before) if (!now.has(record) && hidesWholly(record)) mark(state, record, 0);
      for (const record of records) if (!was.has(record) && hidesWholly(record)) mark(state, record, 1);
    } else {
      state = { hidden: new Uint8Array(messages.length), perTurn: new Uint32Array(turnsOf().length) };
      for (const record of records) if (hidesWholly(record)) mark(state, record, 1);
    }
    hiddenByPlan.set(plan, state);
    return state;
  };
  function normalized(plan: CompactionPlan): NormalizedPlan {
    let known = normalizations.get(plan);
    if (!known) {
      known = normalizedPlanOf(plan);
      normalizations.set(plan, known);
    }
    return known;
  }
  return {
    thread,
    get byId() {
      return byId();
    },
    positionOf,
    get toolPairs() {
      return toolPairs();
    },
    get turnRanges() {
      return turnsOf();
    },
    get pinned() {
      return pinned();
    },
    get turnStarts() {
      return turnStarts();
    },
    get turnStartIds() {
      return turnStartIds();
    },
    get turnStartAt() {
      return turnStartAt();
    },
    get kind() {
      return kind();
    },
    get namedSpeakers() {
      return namedSpeakers();
    },
    normalized,
    recordPositions,
    rememberPositions(record, positions) {
      if (positionsOfRecords.has(record)) return;
      positionsOfRecords.set(record, positions);
      knownPositions.set(record, { messages, positions });
    },
    hiddenPerTurn: (plan) => hiddenState(plan).perTurn,
    hiddenAt: (plan) => hiddenState(plan).hidden,
    partnersEdge(start) {
      let edge = edges.get(start);
      if (edge === undefined) {
        edge = partnersEdgeOf(messages, start, toolPairs(), positionOf);
        edges.set(start, edge);
      }
      return edge;
    },
    carriesInstruction(message) {
      let carries = instructions.get(message.id);
      if (carries === undefined) {
        carries = carriesInstruction(message);
        instructions.set(message.id, carries);
      }
      return carries;
    },
  };
}

/**
 * The closure of `messages[start..]` under tool pairs (`closeOverToolPairs`), walked without building
 * the tail's id set: the tail's own messages are in the closure already, so only partners before
 * `start` are followed, and the earliest position reached is the edge.
 */
function partnersEdgeOf(
  messages: readonly ThreadMessage[],
  start: number,
  pairs: ToolPairIndex,
  positionOf: (id: string) => number | undefined,
): number {
  let edge = start;
  const reached = new Set<string>();
  const queue: string[] = [];
  const follow = (messageId: string) => {
    for (const callId of pairs.callIdsByMessageId.get(messageId) ?? []) {
      const pair = pairs.byCallId.get(callId);
      if (!pair) continue;
      for (const partner of [pair.callMessageId, pair.resultMessageId]) {
        if (partner === undefined || reached.has(partner)) continue;
        const position = positionOf(partner);
        if (position !== undefined && position >= start) continue;
        reached.add(partner);
        queue.push(partner);
        if (position !== undefined) edge = Math.min(edge, position);
      }
    }
  };
  for (let position = start; position < messages.length; position += 1) follow(messages[position]!.id);
  while (queue.length > 0) follow(queue.pop()!);
  return edge;
}
