import type { NormalizedPlan } from '../plan/normalize.js';
import type { CompactionRecord } from '../plan/records.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import type { Thread, ThreadMessage } from '../thread/thread.js';
import { keptUserMessageIds } from './kept-user-words.js';
import { createPlanningIndex, type PlanningIndex } from './planning-index.js';

/** One unit of the conversation as the model sees it: a message (planner) or a rendered slot (renderer). */
export interface TailUnit {
  /** The log's turn number (0 = the preamble before the first user turn). */
  readonly turn: number;
  /** Tokens it costs as rendered; 0 for what the plan drops. */
  readonly tokens: number;
}

/** The policy's tail settings and what the caller knows of the conversation. */
export interface ProtectedTailOptions {
  keepRecentTurns: number;
  keepRecentTokens: number;
  /** The log's newest turn (turns count even when their messages render as a summary). */
  lastTurn: number;
  /**
   * The long-turn exception: when the turn tail holds more than this many tokens, the tail shrinks
   * to the token suffix alone. The planner passes half its target; the renderer what the window leaves.
   */
  shrinkAbove: number;
  /** Moves a start back so no tool call is cut from its result (units that already pair them: identity). */
  withPartners?: (start: number) => number;
  /**
   * Units that cost nothing whatever their `tokens` say (the planner's: what the plan drops), asked only
   * of the units the tail reads, so a caller need not copy every unit to zero a few (ADR-0387).
   */
  costsNothing?: (index: number) => boolean;
}

/** Where the protected tail starts, and why. */
export interface ProtectedTail {
  /** Index of the first protected unit. */
  start: number;
  /** How the edge was chosen, for reports. */
  rule: 'recent-turns' | 'recent-tokens';
}

/**
 * The protected tail, the one definition the planner and the renderer share (ADR-0070): the last
 * `keepRecentTurns` whole turns, extended back by whole turns to cover the longest suffix within
 * `keepRecentTokens` (the newest unit always counts, so one huge older result cannot drag the whole
 * tail, and everything before it, out of reach). When that tail holds more than `shrinkAbove`
 * tokens (one request followed by hundreds of tool calls) and the token suffix is shorter, the tail
 * is the token suffix alone, so long agent turns stay compactable and renderable.
 *
 * @param units - The conversation in order, turn numbers never decreasing.
 * @param options - The tail settings, the newest turn and the long-turn bound.
 * @returns The first protected index and which rule set it.
 */
export function protectedTail(units: readonly TailUnit[], options: ProtectedTailOptions): ProtectedTail {
  const withPartners = options.withPartners ?? ((start: number) => start);
  const costsNothing = options.costsNothing;
  const tokenStart = withPartners(tokenSuffixStart(units, options.keepRecentTokens, costsNothing));
  let turnStart = units.length;
  if (options.keepRecentTurns > 0) {
    const firstProtectedTurn = Math.max(1, options.lastTurn - options.keepRecentTurns + 1);
    while (turnStart > 0 && units[turnStart - 1]!.turn >= firstProtectedTurn) turnStart -= 1;
  }
  if (tokenStart < turnStart) {
    const turn = units[tokenStart]!.turn;
    turnStart = tokenStart;
    while (turnStart > 0 && units[turnStart - 1]!.turn === turn) turnStart -= 1;
  }
  if (tokenStart > turnStart && unitTokensFrom(units, turnStart, costsNothing) > options.shrinkAbove) {
    return { start: tokenStart, rule: 'recent-tokens' };
  }
  return { start: turnStart, rule: 'recent-turns' };
}

/** The longest suffix within `keepRecentTokens`; the newest unit always counts. */
function tokenSuffixStart(
  units: readonly TailUnit[],
  keepRecentTokens: number,
  costsNothing?: (index: number) => boolean,
): number {
  let start = units.length;
  let tokens = 0;
  while (start > 0) {
    const cost = costsNothing?.(start - 1) ? 0 : units[start - 1]!.tokens;
    if (start < units.length && tokens + cost > keepRecentTokens) break;
    tokens += cost;
    start -= 1;
  }
  return start;
}

/**
 * Tokens of the units from `start` to the end.
 *
 * @param units - The conversation in order.
 * @param start - The first unit counted.
 * @param costsNothing - Units counted as 0 (`ProtectedTailOptions.costsNothing`).
 * @returns Their tokens.
 */
export function unitTokensFrom(
  units: readonly TailUnit[],
  start: number,
  costsNothing?: (index: number) => boolean,
): number {
  let tokens = 0;
  for (let index = start; index < units.length; index += 1)
    if (!costsNothing?.(index)) tokens += units[index]!.tokens;
  return tokens;
}

/** What no rung may touch: the protected tail and the untouchable messages before it. */
export interface ProtectedRegions {
  /** Index of the first protected message: no rung touches it or anything after it. */
  protectedStart: number;
  /** How the edge was chosen, for reports. */
  rule: ProtectedTail['rule'];
  /**
   * Messages no rung may touch anywhere: pinned, system, and their tool-call partners; and the
   * user's own words `keptUserMessageIds` keeps.
   */
  untouchable: ReadonlySet<string>;
  /**
   * The user's messages `keptUserMessageIds` keeps (a subset of `untouchable`): no rung takes them
   * whole, but the abridge rung may replace their media and clip their pastes (ADR-0266).
   */
  keptUserWords: ReadonlySet<string>;
}

/**
 * What no rung may touch: `protectedTail` over the thread's messages (dropped ones cost nothing,
 * tool partners of the token suffix come along), with the long-turn exception at half the target;
 * pinned and system messages anywhere, with their tool-call partners; and the user's own messages
 * `keptUserMessageIds` keeps (ADR-0110). Summaries and drops only
 * ever take whole turns before the edge.
 *
 * With a planning run's `index` (ADR-0280) the thread's tool pairs, pinned messages and turns are read
 * from it, and the regions are computed once per distinct set of what they depend on in the plan: its
 * dropped messages (they cost nothing in the tail) and the user turns it already compacts (they are no
 * longer candidates for keeping). A step that externalizes or clears tool results reuses them.
 *
 * @param thread - The folded thread.
 * @param policy - Its `keepRecentTurns` and `keepRecentTokens`.
 * @param countMessage - Tokens of a message as rendered.
 * @param normalized - The current plan (its dropped messages cost nothing).
 * @param targetTokens - The planner's target; half of it bounds the long-turn exception.
 * @param index - The planning run's index of `thread` (built here when absent).
 * @returns Where the protected tail starts, by which rule, and the untouchable ids.
 */
export function computeProtectedRegions(
  thread: Thread,
  policy: CompactionPolicy,
  countMessage: (message: ThreadMessage) => number,
  normalized: NormalizedPlan,
  targetTokens: number,
  index: PlanningIndex = createPlanningIndex(thread),
): ProtectedRegions {
  const memo = regionsMemo(index, policy, countMessage, targetTokens);
  const dependence = planDependence(index, normalized);
  const known = memo.get(dependence.key);
  if (known) return known;
  const regions = regionsOf(index, policy, countMessage, normalized, targetTokens);
  memo.set(dependence.key, regions);
  return regions;
}

function regionsOf(
  index: PlanningIndex,
  policy: CompactionPolicy,
  countMessage: (message: ThreadMessage) => number,
  normalized: NormalizedPlan,
  targetTokens: number,
): ProtectedRegions {
  const { thread } = index;
  const messages = thread.messages;
  // Every message as counted, once per run and only when read: the tail is found from the newest
  // message back, so a long history before it is never counted.
  const units: TailUnit[] = getOrSet(
    getOrSet(baseUnits, index, () => new WeakMap()),
    countMessage,
    () => messages.map((message) => new CountedOnRead(message, countMessage)),
  );
  // A dropped message costs nothing: asked of the messages the tail reads, not marked in a copy of every
  // unit (a long compacted thread drops tens of thousands of messages, and most steps miss the memo).
  const owners = normalized.actions;
  const tail = protectedTail(units, {
    keepRecentTurns: policy.keepRecentTurns,
    keepRecentTokens: policy.keepRecentTokens,
    lastTurn: messages.at(-1)?.turn ?? 0,
    shrinkAbove: targetTokens / 2,
    withPartners: index.partnersEdge,
    costsNothing: (position) => owners.get(messages[position]!.id)?.action === 'drop',
  });
  // A provider's opaque part is kept verbatim (ADR-0250): its message is pinned.
  const untouchable = new Set(index.pinned);
  const keptUserWords = keptUserMessageIds(thread, policy, countMessage, normalized, index);
  for (const id of keptUserWords) untouchable.add(id);
  return { protectedStart: tail.start, rule: tail.rule, untouchable, keptUserWords };
}

const baseUnits = new WeakMap<PlanningIndex, WeakMap<object, TailUnit[]>>();

/** A message as a tail unit whose tokens are counted on first read (`countMessage` is pure). */
class CountedOnRead implements TailUnit {
  readonly turn: number;
  #tokens = -1;
  constructor(
    private readonly message: ThreadMessage,
    private readonly countMessage: (message: ThreadMessage) => number,
  ) {
    this.turn = message.turn;
  }
  get tokens(): number {
    if (this.#tokens < 0) this.#tokens = this.countMessage(this.message);
    return this.#tokens;
  }
}

/** Regions already computed in a run, for one policy, counter and target, by `planDependence`. */
type RegionsMemo = Map<string, ProtectedRegions>;

const regionsMemos = new WeakMap<PlanningIndex, WeakMap<object, WeakMap<object, Map<number, RegionsMemo>>>>();

function regionsMemo(
  index: PlanningIndex,
  policy: CompactionPolicy,
  countMessage: (message: ThreadMessage) => number,
  targetTokens: number,
): RegionsMemo {
  const byPolicy = getOrSet(regionsMemos, index, () => new WeakMap());
  const byCounter = getOrSet(byPolicy, policy, () => new WeakMap());
  const byTarget = getOrSet(byCounter, countMessage, () => new Map());
  return getOrSet(byTarget, targetTokens, () => new Map());
}

function getOrSet<K, V>(
  map: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  make: () => V,
): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** What one record of a normalized plan contributes to `planDependence`. */
interface RecordDependence {
  /** A number naming the record (a record object is never edited). */
  id: number;
}

const recordDependences = new WeakMap<PlanningIndex, WeakMap<CompactionRecord, RecordDependence | null>>();

/**
 * The record's contribution, walked once per run and record: null when it neither drops a message nor
 * takes or abridges a user turn start (which decides whether that turn start may be kept).
 */
function recordDependence(index: PlanningIndex, record: CompactionRecord): RecordDependence | null {
  const known = getOrSet(recordDependences, index, () => new WeakMap());
  const memo = known.get(record);
  if (memo !== undefined) return memo;
  let drops = false;
  let holdsTurnStart = false;
  const turnStartAt = index.turnStartAt;
  for (const position of index.recordPositions(record)) {
    if (position < 0) continue;
    if (record.kind === 'drop') drops = true;
    if (turnStartAt[position] === 1) holdsTurnStart = true;
  }
  const result = drops || holdsTurnStart ? { id: nextRecordId++ } : null;
  known.set(record, result);
  return result;
}

let nextRecordId = 0;

/**
 * What of the plan the regions depend on, as a key: the records that drop messages or compact user turn
 * starts, by identity (ADR-0325). Each record's positions are read once per run, so a step reads only
 * the records it added, not every message the plan hides. Two plans with the same key have the same
 * regions; two with the same positions but different records only miss the memo.
 */
function planDependence(index: PlanningIndex, normalized: NormalizedPlan): { key: string } {
  const contributing: RecordDependence[] = [];
  for (const record of normalized.records) {
    // A normalized record owns every id it names (a conflict leaves a reduced copy, a new object).
    const dependence = recordDependence(index, record);
    if (dependence) contributing.push(dependence);
  }
  return { key: contributing.map((dependence) => dependence.id).join(',') };
}
