import type { NormalizedPlan } from '../plan/normalize.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import type { Thread, ThreadMessage } from '../thread/thread.js';
import { buildToolPairIndex, closeOverToolPairs } from '../thread/tool-pairs.js';
import { turnRanges } from '../thread/turns.js';

export interface ProtectedRegions {
  /** Index of the first protected message: no rung touches it or anything after it. */
  protectedStart: number;
  /** How the edge was chosen, for reports. */
  rule: 'recent-turns' | 'recent-tokens';
  /** Messages no rung may touch anywhere: pinned, system, and their tool-call partners. */
  untouchable: ReadonlySet<string>;
}

/**
 * The protected tail is the last `keepRecentTurns` whole turns, extended back to cover the most
 * recent `keepRecentTokens` (the longest suffix of messages within that many tokens). One exception keeps long agent turns compactable: when that tail would take
 * more than half the target (a single request followed by hundreds of tool calls), it shrinks to
 * the most recent `keepRecentTokens` alone, so older tool results of the running turn can still be
 * cleared or externalized. Summaries and drops only ever take whole turns before the edge.
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
  const visibleTokens = (from: number) => {
    let total = 0;
    for (let index = from; index < messages.length; index += 1) {
      const message = messages[index]!;
      if (normalized.actions.get(message.id)?.action !== 'drop') total += countMessage(message);
    }
    return total;
  };
  const withPartners = (start: number) => {
    const ids = closeOverToolPairs(
      messages.slice(start).map((message) => message.id),
      pairs,
    );
    let edge = start;
    for (const message of messages) if (ids.has(message.id)) edge = Math.min(edge, message.index);
    return edge;
  };

  // The longest suffix within keepRecentTokens (the newest message always counts as recent):
  // one huge older result must not drag the whole tail, and everything before it, out of reach.
  let tokenStart = messages.length;
  let tokens = 0;
  while (tokenStart > 0) {
    const message = messages[tokenStart - 1]!;
    const cost = normalized.actions.get(message.id)?.action === 'drop' ? 0 : countMessage(message);
    if (tokenStart < messages.length && tokens + cost > policy.keepRecentTokens) break;
    tokens += cost;
    tokenStart -= 1;
  }
  tokenStart = withPartners(tokenStart);

  // The last keepRecentTurns turns, extended by whole turns to cover the token tail.
  const turns = turnRanges(messages).filter((range) => range.turn > 0);
  let turnStart =
    policy.keepRecentTurns > 0
      ? (turns.at(-policy.keepRecentTurns)?.start ?? turns[0]?.start ?? messages.length)
      : messages.length;
  for (const range of turns) {
    if (range.start <= tokenStart && tokenStart < range.end) turnStart = Math.min(turnStart, range.start);
  }

  const pinned = messages
    .filter((message) => message.pinned === true || message.role === 'system')
    .map((message) => message.id);
  const untouchable = closeOverToolPairs(pinned, pairs);
  if (visibleTokens(turnStart) > targetTokens / 2 && tokenStart > turnStart) {
    return { protectedStart: tokenStart, rule: 'recent-tokens', untouchable };
  }
  return { protectedStart: turnStart, rule: 'recent-turns', untouchable };
}
