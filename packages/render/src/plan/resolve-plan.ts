import {
  ACTION_PRECEDENCE,
  actionOfRecord,
  type CompactionPlan,
  type CompactionRecord,
  externalizesInPlaceAmong,
  knownRecordPositions,
  type NormalizedPlan,
  normalizedPlanOf,
  type PlannedAction,
  type Thread,
  type ThreadMessage,
  ValidationError,
} from '@compactor/core';
import type { RenderCache } from '../cache/render-cache.js';
import type { ToolExchange, ToolExchangeIndex } from './tool-exchanges.js';

export type EffectiveActionName =
  | 'drop'
  | 'summarize'
  | 'externalize'
  | 'pointer'
  | 'clear'
  | 'abridge'
  | 'exclude';

/**
 * What happens to one message. `exclude`: the message belongs to another agent's conversation.
 * `pointer`: a tool result externalized in place: an externalization record that covers only tool
 * results keeps each result's slot after its call, holding the pointer instead of the content, so
 * the assistant message that made the call and its other results stay as they are.
 */
export interface EffectiveAction {
  action: EffectiveActionName;
  record: CompactionRecord | undefined;
}

/**
 * The plan resolved against the thread, by message position. Kept in the render cache per
 * (thread, plan object, agent) and extended as messages are appended: the log only grows, so only
 * the new messages and the tool exchanges they join need looking at.
 */
export interface PlanResolution {
  normalized: NormalizedPlan | undefined;
  /** What the plan (and the agent filter) says, by message index; undefined = included as it is. */
  planned: (EffectiveAction | undefined)[];
  /** The same after orphan repairs: what is rendered. */
  actions: (EffectiveAction | undefined)[];
  /** Repaired message index → why; reported in index order. */
  repairs: Map<number, string>;
  /** Messages the plan names that are in the thread. */
  plannedIdsSeen: number;
  size: number;
  lastMessageId: string | undefined;
  /** Whether each externalization record covers only tool results, as far as the thread shows. */
  toolOnlyRecords: Map<CompactionRecord, boolean>;
  /**
   * A record's span reaches past the thread's end (the plan names messages not here yet), so what
   * it covers may change as messages arrive: the next render resolves from scratch, as a cold
   * render would.
   */
  provisional: boolean;
  /**
   * Bumped whenever the action of a message resolved before the last extension changes (a repair
   * reaching back into the history): what was derived from the old actions is then stale.
   */
  epoch: number;
  /** What `buildSlots` derived from this resolution's actions, extended while `epoch` holds. */
  scan?: ResolutionScan;
}

/**
 * The positions a render visits, derived from a resolution's actions: every message shown (as it
 * is, cleared or as a pointer) and the first message of each summarized or externalized record,
 * with how many messages each hiding action took. Extended for new messages only, so a render of a
 * mostly compacted thread walks what it shows, not the whole log (issue #18).
 */
export interface ResolutionScan {
  epoch: number;
  scanned: number;
  visit: number[];
  records: Set<CompactionRecord>;
  excluded: number;
  dropped: number;
  summarized: number;
  externalized: number;
}

const EXCLUDED: EffectiveAction = { action: 'exclude', record: undefined };
/**
 * How strongly an action claims a tool-exchange group: another agent's message outranks every plan
 * action, the rest follow core's `ACTION_PRECEDENCE` (a pointer is an externalization in place).
 */
function rank(action: EffectiveActionName): number {
  if (action === 'exclude') return Number.POSITIVE_INFINITY;
  return ACTION_PRECEDENCE[action === 'pointer' ? 'externalize' : action];
}

/** Whether the message is left out of the request (an abridged one is shown, its media and pastes replaced). */
function hides(action: EffectiveAction | undefined): boolean {
  return (
    action !== undefined &&
    action.action !== 'clear' &&
    action.action !== 'pointer' &&
    action.action !== 'abridge'
  );
}

/**
 * The thread's messages by id, built once per message list (not per record, not per candidate plan). Keyed by the
 * list, never kept on a resolution: a resolution outlives its thread version as messages arrive, and a record first
 * checked on a later version must see that version's messages (a map kept on the resolution made a warm render differ
 * from a cold one).
 */
const messagesByIdOfList = new WeakMap<readonly ThreadMessage[], Map<string, ThreadMessage>>();
function messagesById(thread: Thread): Map<string, ThreadMessage> {
  let byId = messagesByIdOfList.get(thread.messages);
  // A list a caller pushed to since holds more messages than the map: built again.
  if (byId === undefined || byId.size !== thread.messages.length) {
    byId = new Map(thread.messages.map((message) => [message.id, message]));
    messagesByIdOfList.set(thread.messages, byId);
  }
  return byId;
}

/** An externalization whose span holds only tool results (the planner's externalize rung makes these). */
function coversOnlyToolResults(
  record: CompactionRecord,
  thread: Thread,
  resolution: PlanResolution,
): boolean {
  let known = resolution.toolOnlyRecords.get(record);
  if (known === undefined) {
    const byId = messagesById(thread);
    known = externalizesInPlaceAmong(record, (id) => byId.get(id));
    const ids = new Set(record.span.messageIds);
    let present = 0;
    for (const id of ids) if (byId.has(id)) present += 1;
    if (present < ids.size) resolution.provisional = true;
    resolution.toolOnlyRecords.set(record, known);
  }
  return known;
}

function effectiveAction(
  action:
    | { action: Exclude<EffectiveActionName, 'exclude' | 'pointer'>; record: CompactionRecord }
    | undefined,
  message: Thread['messages'][number],
  thread: Thread,
  resolution: PlanResolution,
): EffectiveAction | undefined {
  if (
    action?.action === 'externalize' &&
    message.role === 'tool' &&
    coversOnlyToolResults(action.record, thread, resolution)
  ) {
    return { action: 'pointer', record: action.record };
  }
  return action;
}

/** Normalization conflicts first, then repairs in message order: independent of how the cache grew. */
export function resolutionWarnings(resolution: PlanResolution): string[] {
  const warnings = resolution.normalized ? [...resolution.normalized.warnings] : [];
  if (resolution.repairs.size === 0) return warnings;
  const positions = [...resolution.repairs.keys()].sort((left, right) => left - right);
  for (const position of positions) warnings.push(resolution.repairs.get(position)!);
  return warnings;
}

export function normalizedPlanFor(
  thread: Thread,
  plan: CompactionPlan | null,
  cache: RenderCache,
): NormalizedPlan | undefined {
  if (!plan) return undefined;
  if (plan.threadId !== thread.id) {
    throw new ValidationError(`plan is for thread ${plan.threadId}, not ${thread.id}`, [
      { path: 'plan.threadId', message: `must be ${thread.id}` },
    ]);
  }
  return cache.normalizedPlan(plan, normalizedPlanOf);
}

/**
 * Resolve the plan by message and repair what would orphan a tool call or result. Messages joined
 * by tool exchanges form small groups (an assistant message and the messages answering it); when a
 * group mixes shown and hidden messages (summarized, externalized, dropped, another agent's), every
 * shown one follows the group's strongest hidden message (exclude > drop > externalize > summarize,
 * then the earliest). A function of the final thread, so extending a cached resolution message by
 * message gives exactly what a cold resolution gives. `previous` is extended in place.
 */
export function resolvePlan(
  thread: Thread,
  normalized: NormalizedPlan | undefined,
  exchanges: ToolExchangeIndex,
  agent: string | undefined,
  previous: PlanResolution | undefined,
): PlanResolution {
  const messages = thread.messages;
  let resolution = previous;
  const reusable =
    resolution !== undefined &&
    !resolution.provisional &&
    resolution.normalized === normalized &&
    resolution.size <= messages.length &&
    (resolution.size === 0 || messages[resolution.size - 1]?.id === resolution.lastMessageId);
  if (!reusable || resolution === undefined) {
    resolution = {
      normalized,
      planned: [],
      actions: [],
      repairs: new Map(),
      plannedIdsSeen: 0,
      size: 0,
      lastMessageId: undefined,
      toolOnlyRecords: new Map(),
      provisional: false,
      epoch: 0,
    };
  }
  const from = resolution.size;
  const { planned, actions } = resolution;
  for (let position = from; position < messages.length; position += 1) {
    const message = messages[position]!;
    const action = normalized?.actions.get(message.id);
    if (action) resolution.plannedIdsSeen += 1;
    planned[position] =
      message.subagentId !== agent ? EXCLUDED : effectiveAction(action, message, thread, resolution);
    actions[position] = planned[position];
  }
  const visited = new Set<number>();
  const regroup = (exchange: ToolExchange) => {
    if (exchange.resultMessageIndex === undefined || visited.has(exchange.callMessageIndex)) return;
    repairGroup(groupOf(exchange.callMessageIndex, exchanges, visited), resolution!, messages, from);
  };
  if (from === 0) {
    for (const exchange of exchanges.exchanges) {
      if (exchange.resultMessageIndex === undefined) continue;
      if (hides(planned[exchange.callMessageIndex]) !== hides(planned[exchange.resultMessageIndex]))
        regroup(exchange);
    }
  } else {
    for (let position = from; position < messages.length; position += 1) {
      for (const exchange of exchanges.callsByMessage.get(position) ?? []) regroup(exchange);
      for (const exchange of exchanges.resultsByMessage.get(position) ?? []) if (exchange) regroup(exchange);
    }
  }
  resolution.size = messages.length;
  resolution.lastMessageId = messages.at(-1)?.id;
  return resolution;
}

/** Message indexes joined to `start` by tool exchanges, sorted. */
function groupOf(start: number, exchanges: ToolExchangeIndex, visited: Set<number>): number[] {
  // The group is its own queue (walked by index), without a closure or a copy per group: a summarize step
  // derives hundreds of groups per measurement.
  const group = [start];
  const members = new Set(group);
  for (let at = 0; at < group.length; at += 1) {
    const position = group[at]!;
    visited.add(position);
    for (const exchange of exchanges.callsByMessage.get(position) ?? []) {
      const result = exchange.resultMessageIndex;
      if (result === undefined || members.has(result)) continue;
      members.add(result);
      group.push(result);
    }
    for (const exchange of exchanges.resultsByMessage.get(position) ?? []) {
      if (!exchange || members.has(exchange.callMessageIndex)) continue;
      members.add(exchange.callMessageIndex);
      group.push(exchange.callMessageIndex);
    }
  }
  return group.sort(ascending);
}

const ascending = (left: number, right: number) => left - right;

function repairGroup(
  group: readonly number[],
  resolution: PlanResolution,
  messages: Thread['messages'],
  from: number,
): void {
  const { planned, actions, repairs } = resolution;
  const before = group.map((position) => (position < from ? actions[position] : undefined));
  let leader: number | undefined;
  for (const position of group) {
    const action = planned[position];
    if (hides(action) && (leader === undefined || rank(action!.action) > rank(planned[leader]!.action))) {
      leader = position;
    }
  }
  for (const position of group) {
    repairs.delete(position);
    actions[position] = planned[position];
    if (leader === undefined || hides(planned[position])) continue;
    const lead = planned[leader]!;
    actions[position] = lead.action === 'exclude' ? EXCLUDED : { action: lead.action, record: lead.record };
    repairs.set(
      position,
      `message ${messages[position]!.id} follows ${messages[leader]!.id} (${lead.action}) so no tool call or result is orphaned`,
    );
  }
  group.forEach((position, at) => {
    if (position >= from) return;
    const was = before[at];
    const now = actions[position];
    if (was?.action !== now?.action || was?.record !== now?.record) resolution.epoch += 1;
  });
}

/**
 * The resolution of `normalized` derived from `base`, another plan's resolution of the same thread
 * and agent: only the messages whose planned action differs between the two plans, and the
 * tool-exchange groups they belong to, are resolved again (a group's repair depends on its own
 * members' planned actions only). The result equals `resolvePlan(thread, normalized, …)` from
 * nothing; a planner's step changes a few spans of a long thread, so this reads those (ADR-0300).
 *
 * @param base - A complete resolution of another plan for the same thread (its `size` is the thread's length).
 * @param positionOf - A message's log position by id.
 * @returns A new resolution; `base` is not changed.
 */
export function deriveResolution(
  thread: Thread,
  normalized: NormalizedPlan | undefined,
  exchanges: ToolExchangeIndex,
  agent: string | undefined,
  base: PlanResolution,
  positionOf: (id: string) => number | undefined,
): PlanResolution {
  const messages = thread.messages;
  const resolution: PlanResolution = {
    normalized,
    planned: base.planned.slice(),
    actions: base.actions.slice(),
    repairs: new Map(base.repairs),
    plannedIdsSeen: base.plannedIdsSeen,
    size: base.size,
    lastMessageId: base.lastMessageId,
    // Whether a record covers only tool results depends on the record and the thread alone.
    toolOnlyRecords: new Map(base.toolOnlyRecords),
    provisional: base.provisional,
    epoch: 0,
  };
  const before = base.normalized?.actions;
  const after = normalized?.actions;
  const changed =
    base.normalized && normalized
      ? changedByRecords(base.normalized, normalized, messages, positionOf)
      : undefined;
  if (changed) resolution.plannedIdsSeen += changed.seen;
  const positionsChanged = changed?.positions ?? [];
  if (!changed && after) {
    for (const [id, action] of after) {
      const was = before?.get(id);
      if (was !== undefined && was.action === action.action && was.record === action.record) continue;
      const position = positionOf(id);
      if (position === undefined) continue;
      if (was === undefined) resolution.plannedIdsSeen += 1;
      positionsChanged.push(position);
    }
  }
  if (!changed && before) {
    for (const id of before.keys()) {
      if (after?.has(id)) continue;
      const position = positionOf(id);
      if (position === undefined) continue;
      resolution.plannedIdsSeen -= 1;
      positionsChanged.push(position);
    }
  }
  const { planned, actions, repairs } = resolution;
  positionsChanged.forEach((position, at) => {
    const message = messages[position]!;
    // The owner read by record when the change was (ADR-0455), else from the owner map.
    const owner = changed ? changed.owners[at] : after?.get(message.id);
    planned[position] =
      message.subagentId !== agent ? EXCLUDED : effectiveAction(owner, message, thread, resolution);
  });
  const visited = new Set<number>();
  for (const position of positionsChanged) {
    if (visited.has(position)) continue;
    if (exchanges.callsByMessage.has(position) || exchanges.resultsByMessage.has(position)) {
      repairGroup(groupOf(position, exchanges, visited), resolution, messages, 0);
    } else {
      // Joined to no other message: a group of one, whose action is what is planned.
      repairs.delete(position);
      actions[position] = planned[position];
    }
  }
  return resolution;
}

/**
 * The positions whose planned action differs between two normalizations, read by record (ADR-0351): when
 * neither has a conflict, each record of its list owns every id it names and no id is named twice, so an id
 * keeps its action and owner exactly when its owner is a record both lists hold. Only the ids of the records
 * one list holds and the other does not are read, not every hidden id; and whether such an id was or is
 * owned is known from those records alone, so neither owner map is asked per id (ADR-0455: a merged block's
 * tens of thousands of ids each read through the owner map's versions cost more than the walk itself).
 * Undefined when either normalization had conflicts (its owners may be records its list does not hold):
 * the maps are then compared id by id.
 *
 * @returns The changed positions (each once), each one's owner in `after` (undefined: none), and the
 *   change in planned ids seen in the thread.
 */
function changedByRecords(
  before: NormalizedPlan,
  after: NormalizedPlan,
  messages: readonly ThreadMessage[],
  positionOf: (id: string) => number | undefined,
): { positions: number[]; owners: (PlannedAction | undefined)[]; seen: number } | undefined {
  if (before.warnings.length > 0 || after.warnings.length > 0) return undefined;
  const kept = new Set(before.records);
  const now = new Set(after.records);
  const marked = new Uint8Array(messages.length);
  const positions: number[] = [];
  const owners: (PlannedAction | undefined)[] = [];
  let seen = 0;
  // A record's positions as the planning run of this thread read them (ADR-0388; a merged summary block's
  // are known from merging its parts), else each id looked up (-1: not in the thread).
  const positionsOf = (record: CompactionRecord): ArrayLike<number> =>
    knownRecordPositions(record, messages) ??
    record.span.messageIds.map((id) => positionOf(id) ?? NOT_IN_THREAD);
  const beforeOnly = before.records.filter((record) => !now.has(record)).map((record) => positionsOf(record));
  // Owned in `before` by a record `after` does not hold: a record both hold owns the same ids in both, so
  // these ids are now owned by a record only `after` holds, or by none.
  for (const recordPositions of beforeOnly) {
    for (let index = 0; index < recordPositions.length; index += 1) {
      const position = recordPositions[index]!;
      if (position !== NOT_IN_THREAD) marked[position] = OWNED_BEFORE_ONLY;
    }
  }
  for (const record of after.records) {
    if (kept.has(record)) continue;
    const owner: PlannedAction = { action: actionOfRecord(record), record };
    const recordPositions = positionsOf(record);
    for (let index = 0; index < recordPositions.length; index += 1) {
      const position = recordPositions[index]!;
      if (position === NOT_IN_THREAD) continue;
      const mark = marked[position]!;
      if ((mark & OWNED_AFTER_ONLY) !== 0) continue;
      if (mark === 0) seen += 1;
      marked[position] = mark | OWNED_AFTER_ONLY;
      positions.push(position);
      owners.push(owner);
    }
  }
  for (const recordPositions of beforeOnly) {
    for (let index = 0; index < recordPositions.length; index += 1) {
      const position = recordPositions[index]!;
      // Owned by a record only `after` holds: read above. Owned by none now: it left the plan.
      if (position === NOT_IN_THREAD || marked[position] !== OWNED_BEFORE_ONLY) continue;
      marked[position] = OWNED_BEFORE_ONLY | OWNED_AFTER_ONLY;
      positions.push(position);
      owners.push(undefined);
      seen -= 1;
    }
  }
  return { positions, owners, seen };
}

/** `changedByRecords`' marks: a position a record only `before` holds owned, one a record only `after` holds owns. */
const OWNED_BEFORE_ONLY = 1;
const OWNED_AFTER_ONLY = 2;
const NOT_IN_THREAD = -1;
