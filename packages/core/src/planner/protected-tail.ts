import type { NormalizedPlan } from '../plan/normalize.js';
import { holdsOpaquePart } from '../schemas/content.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import type { Thread, ThreadMessage } from '../thread/thread.js';
import { buildToolPairIndex, closeOverToolPairs } from '../thread/tool-pairs.js';
import { keptUserMessageIds } from './kept-user-words.js';

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
  const tokenStart = withPartners(tokenSuffixStart(units, options.keepRecentTokens));
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
  if (tokenStart > turnStart && unitTokensFrom(units, turnStart) > options.shrinkAbove) {
    return { start: tokenStart, rule: 'recent-tokens' };
  }
  return { start: turnStart, rule: 'recent-turns' };
}

/** The longest suffix within `keepRecentTokens`; the newest unit always counts. */
function tokenSuffixStart(units: readonly TailUnit[], keepRecentTokens: number): number {
  let start = units.length;
  let tokens = 0;
  while (start > 0) {
    const cost = units[start - 1]!.tokens;
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
 * @returns Their tokens.
 */
export function unitTokensFrom(units: readonly TailUnit[], start: number): number {
  let tokens = 0;
  for (let index = start; index < units.length; index += 1) tokens += units[index]!.tokens;
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
 * @param thread - The folded thread.
 * @param policy - Its `keepRecentTurns` and `keepRecentTokens`.
 * @param countMessage - Tokens of a message as rendered.
 * @param normalized - The current plan (its dropped messages cost nothing).
 * @param targetTokens - The planner's target; half of it bounds the long-turn exception.
 * @returns Where the protected tail starts, by which rule, and the untouchable ids.
 */
export function computeProtectedRegions(
  thread: Thread,
  policy: CompactionPolicy,
  countMessage: (message: ThreadMessage) => number,
  normalized: NormalizedPlan,
  targetTokens: number,
): ProtectedRegions {
  const messages = thread.messages;
  const pairs = buildToolPairIndex(messages);
  const units = messages.map((message) => ({
    turn: message.turn,
    tokens: normalized.actions.get(message.id)?.action === 'drop' ? 0 : countMessage(message),
  }));
  const withPartners = (start: number) => {
    const ids = closeOverToolPairs(
      messages.slice(start).map((message) => message.id),
      pairs,
    );
    let edge = start;
    for (const message of messages) if (ids.has(message.id)) edge = Math.min(edge, message.index);
    return edge;
  };
  const tail = protectedTail(units, {
    keepRecentTurns: policy.keepRecentTurns,
    keepRecentTokens: policy.keepRecentTokens,
    lastTurn: messages.at(-1)?.turn ?? 0,
    shrinkAbove: targetTokens / 2,
    withPartners,
  });
  // A provider's opaque part is kept verbatim (ADR-0250): its message is pinned.
  const pinned = messages
    .filter((message) => message.pinned === true || message.role === 'system' || holdsOpaquePart(message))
    .map((message) => message.id);
  const untouchable = closeOverToolPairs(pinned, pairs);
  const keptUserWords = keptUserMessageIds(thread, policy, countMessage, normalized);
  for (const id of keptUserWords) untouchable.add(id);
  return { protectedStart: tail.start, rule: tail.rule, untouchable, keptUserWords };
}
