import type { CompactionAction } from '../plan/normalize.js';
import type { ThreadMessage } from '../thread/thread.js';
import type { ToolPairIndex } from '../thread/tool-pairs.js';
import type { RungContext } from './planner-types.js';

export function actionsOf(context: RungContext): (message: ThreadMessage) => CompactionAction {
  const normalized = context.index.normalized(context.plan);
  return (message) => normalized.actions.get(message.id)?.action ?? 'include';
}

/**
 * Tool result messages a rung may shrink in place: before the token tail, not pinned, still included
 * (or only their media abridged, which a clear or externalization takes over, ADR-0311).
 */
export function shrinkableToolMessages(context: RungContext): ThreadMessage[] {
  const actionOf = actionsOf(context);
  return context.input.thread.messages.filter((message) => {
    if (message.role !== 'tool' || message.index >= context.regions.protectedStart) return false;
    if (context.regions.untouchable.has(message.id)) return false;
    const action = actionOf(message);
    return action === 'include' || action === 'abridge';
  });
}

export interface TurnCandidate {
  turn: number;
  messages: ThreadMessage[];
}

/**
 * Whole turns before the turn tail, oldest first, each with the messages a structural rung (summarize,
 * drop) may take: not pinned, not already summarized or dropped, and only when every tool partner comes
 * along. Produced on demand (the summarize rung stops once it has enough), and a turn the plan already
 * summarizes or drops whole is passed over by its count (`PlanningIndex.hiddenPerTurn`, ADR-0350), without
 * reading its messages: a long compacted history is mostly such turns.
 *
 * With `splitTurn` (the summarize rung, ADR-0152), a turn the protected tail cuts (one request followed
 * by hundreds of tool calls, so the tail is the token suffix alone) offers its older part too: the
 * messages before the edge, whose tool calls and results all lie before it, so a long running turn is
 * summarized in place rather than left for the renderer to slide a window over.
 */
export function* structuralTurnCandidates(
  context: RungContext,
  options: { splitTurn?: boolean } = {},
): Generator<TurnCandidate> {
  const actionOf = actionsOf(context);
  const messages = context.input.thread.messages;
  const { index } = context;
  const pairs = index.toolPairs;
  const byId = index.byId;
  const edge = context.regions.protectedStart;
  const ranges = index.turnRanges;
  const hidden = index.hiddenPerTurn(context.plan);
  const hiddenAt = index.hiddenAt(context.plan);
  for (let at = 0; at < ranges.length; at += 1) {
    const range = ranges[at]!;
    const split = range.end > edge;
    if (split && !(options.splitTurn && range.start < edge)) break;
    // Every message summarized or dropped: nothing to take, as the walk below would find.
    if (!split && hidden[at] === range.end - range.start) continue;
    // What a summary or a drop may take: a message not already summarized or dropped (an externalized one
    // too: a summary or a drop takes it over, by precedence), read by position (ADR-0417).
    const taken = messages
      .slice(range.start, Math.min(range.end, edge))
      .filter((message) => hiddenAt[message.index] === 0 && !context.regions.untouchable.has(message.id));
    if (taken.length === 0) {
      if (split) break;
      continue;
    }
    const takenIds = new Set(taken.map((message) => message.id));
    // A partner outside the turn, or one the rung may not take, would be orphaned: skip the turn.
    if (leavesPartnerBehind(takenIds, pairs, (id) => actionOf(byId.get(id)!) === 'drop')) {
      if (split) break;
      continue;
    }
    yield { turn: range.turn, messages: taken };
    if (split) break;
  }
}

/**
 * Whether the tool-pair closure of `takenIds` (`closeOverToolPairs`) holds a message outside them that is
 * not `dropped`: walked from the taken messages without building the closure, following a partner outside
 * them only while it is dropped (its own partners are in the closure too), and stopping at the first
 * other one. Most turns pair their calls within themselves and walk no further than their own pairs.
 */
function leavesPartnerBehind(
  takenIds: ReadonlySet<string>,
  pairs: ToolPairIndex,
  dropped: (id: string) => boolean,
): boolean {
  const followed = new Set<string>();
  const queue = [...takenIds];
  const reaches = (partner: string | undefined): boolean => {
    if (partner === undefined || takenIds.has(partner) || followed.has(partner)) return false;
    if (!dropped(partner)) return true;
    followed.add(partner);
    queue.push(partner);
    return false;
  };
  while (queue.length > 0) {
    const messageId = queue.pop()!;
    for (const callId of pairs.callIdsByMessageId.get(messageId) ?? []) {
      const pair = pairs.byCallId.get(callId);
      if (pair && (reaches(pair.callMessageId) || reaches(pair.resultMessageId))) return true;
    }
  }
  return false;
}
