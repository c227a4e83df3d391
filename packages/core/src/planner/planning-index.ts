import type { NormalizedPlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import { holdsOpaquePart } from '../schemas/content.js';
import { isTurnStart, type Thread, type ThreadMessage } from '../thread/thread.js';
import { hasNamedSpeakers, type ThreadKind, threadKindOf } from '../thread/thread-kind.js';
import { buildToolPairIndex, closeOverToolPairs, type ToolPairIndex } from '../thread/tool-pairs.js';
import { type TurnRange, turnRanges } from '../thread/turns.js';
import { carriesInstruction } from './kept-user-words.js';
import { normalizedPlanOf } from './plan-edit.js';

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
  const ranges = lazy(() => turnRanges(messages));
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
  const kind = lazy(() => threadKindOf(messages));
  const namedSpeakers = lazy(() => hasNamedSpeakers(messages));
  const normalizations = new WeakMap<CompactionPlan, NormalizedPlan>();
  const edges = new Map<number, number>();
  const instructions = new Map<string, boolean>();
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
      return ranges();
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
    get kind() {
      return kind();
    },
    get namedSpeakers() {
      return namedSpeakers();
    },
    normalized(plan) {
      let normalized = normalizations.get(plan);
      if (!normalized) {
        normalized = normalizedPlanOf(plan);
        normalizations.set(plan, normalized);
      }
      return normalized;
    },
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
