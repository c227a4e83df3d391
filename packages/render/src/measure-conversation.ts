import {
  type CompactionPlan,
  type ProviderName,
  type Thread,
  type ThreadMessage,
  type Tokenizer,
  tokenBudget,
} from '@compactor/core';
import { openingFor } from './budget/conversation-opening.js';
import { conversationTokens } from './budget/emergency-fit.js';
import type { RenderCache } from './cache/render-cache.js';
import type { ThreadRenderMemo } from './cache/thread-render-memo.js';
import { applyOpaqueParts } from './plan/opaque-parts.js';
import {
  deriveResolution,
  normalizedPlanFor,
  type PlanResolution,
  resolvePlan,
} from './plan/resolve-plan.js';
import { buildSlots, scanResolution, slotAt } from './plan/slots.js';
import { type RenderContext, renderContext } from './render-context.js';

export interface MeasureConversationInput {
  thread: Thread;
  plan: CompactionPlan | null;
  provider: ProviderName;
  tokenizer: Tokenizer;
  cache?: RenderCache;
}

/** A measurement, and what the next one may start from. */
export interface ConversationMeasure {
  /** Message tokens of the request rendered under the plan without a ceiling (`tokens.messages`). */
  readonly tokens: number;
  /** @internal Per-position slot tokens under this plan; absent when it cannot be extended. */
  readonly basis: MeasureBasis | undefined;
}

/** What one measurement derived, by log position, so the next one re-derives only what changed. */
export interface MeasureBasis {
  memo: ThreadRenderMemo;
  /** Messages measured, and the last one's id: a longer thread with the same prefix extends the basis. */
  size: number;
  lastMessageId: string | undefined;
  /** The resolution's epoch when measured: a repair reaching back into the history since voids the basis. */
  epoch: number;
  /** The plan's resolution, complete for `size` messages (a later one may be derived from it). */
  resolution: PlanResolution;
  /** Log position by message id; undefined when two messages share an id (then nothing is derived). */
  positions: Map<string, number> | undefined;
  /**
   * The growable buffers `visited`, `hasSlot` and `slotTokens` are views of (ADR-0370): a measurement
   * extended over appended messages writes past this one's end into the same buffers instead of copying.
   */
  store: MeasureStore;
  /** 1 where the render visits the position (a shown message, a hiding record's first message). */
  visited: Uint8Array;
  /** 1 where the position gives a slot; its tokens in `slotTokens`. */
  hasSlot: Uint8Array;
  slotTokens: Float64Array;
  /** Sum of `slotTokens`. */
  sum: number;
}

/**
 * Per-position buffers with room to grow, shared along one line of extensions (ADR-0370). `written`
 * is the size of the longest measurement viewing them: only that one may be extended in place (a
 * shorter one extended again would overwrite positions the longer one's views still show).
 */
export interface MeasureStore {
  visited: Uint8Array;
  hasSlot: Uint8Array;
  slotTokens: Float64Array;
  written: number;
}

/** Buffers for at least `size` positions, with room for appends (grown by a quarter, so amortized). */
function measureStore(size: number, from?: MeasureStore): MeasureStore {
  const capacity = size + Math.max(1024, size >> 2);
  const store: MeasureStore = {
    visited: new Uint8Array(capacity),
    hasSlot: new Uint8Array(capacity),
    slotTokens: new Float64Array(capacity),
    written: size,
  };
  if (from) {
    store.visited.set(from.visited.subarray(0, from.written));
    store.hasSlot.set(from.hasSlot.subarray(0, from.written));
    store.slotTokens.set(from.slotTokens.subarray(0, from.written));
  }
  return store;
}

/** A ceiling no real prompt reaches: a measurement never triggers the emergency fit. */
const UNBOUNDED = tokenBudget({
  maxInputTokens: Number.MAX_SAFE_INTEGER,
  safetyBufferTokens: 0,
  rehydrationReserveTokens: 0,
});

/**
 * The message tokens a render of `plan` sends, without a ceiling and without recall: the sum of its
 * slots' tokens plus the conversation's opening (exactly `renderPromptSync(...).tokens.messages`
 * under an unbounded budget with `recall: false`). Nothing else a render does (recall, rehydration,
 * assembling the wire messages, the report) changes that sum, so it is not done.
 *
 * Given the measurement of another plan of the same thread, only the positions whose inputs changed
 * are re-derived (ADR-0300): a slot is a function of its message's action, its calls' results'
 * actions and whether the render visits it, so the positions where those differ are re-made with
 * the render's own `slotAt` and the rest keep their tokens.
 *
 * @param input - Thread, plan, wire format, tokenizer and the render cache (pieces are shared with renders).
 * @param previous - A measurement of another plan of this thread, in the same cache; any, or none.
 * @returns The tokens, and the basis the next measurement may start from.
 */
export function measureConversation(
  input: MeasureConversationInput,
  previous?: ConversationMeasure,
): ConversationMeasure {
  const { thread } = input;
  const context = renderContext({
    thread,
    plan: input.plan,
    system: '',
    tools: [],
    budget: UNBOUNDED,
    provider: input.provider,
    tokenizer: input.tokenizer,
    ...(input.cache ? { cache: input.cache } : {}),
    recall: false,
  });
  const normalized = normalizedPlanFor(thread, context.plan, context.cache);
  // A provider's compaction block may cut the slots before it (ADR-0250): measured as a render does.
  const opaque = context.exchanges.opaqueMessages.length > 0;
  const size = thread.messages.length;
  const basis = opaque ? undefined : usableBasis(previous?.basis, context.memo, thread);
  // Deriving needs the previous plan's resolution complete for this thread and one position per id.
  const positions =
    basis && basis.size === size && basis.resolution.size === size
      ? (basis.positions ?? positionsOf(thread.messages))
      : undefined;
  const resolution = context.memo.resolution(context.plan, context.agent ?? '', (earlier) =>
    earlier || !basis || !positions
      ? resolvePlan(thread, normalized, context.exchanges, context.agent, earlier)
      : deriveResolution(thread, normalized, context.exchanges, context.agent, basis.resolution, (id) =>
          positions.get(id),
        ),
  );
  if (opaque) return { tokens: fullCount(context, thread, resolution), basis: undefined };
  // The plan measured before the thread grew (a check after an append measures the committed plan
  // again): only the appended messages, and the calls they answer, are new. A measurement of the same
  // length is not reused across measurers: it would serve only a repeated plan of an unchanged thread.
  const grown = usableBasis(measuredResolutions.get(resolution), context.memo, thread);
  const measured = extend(context, thread, resolution, grown && grown.size < size ? grown : basis, positions);
  // Kept without the id → position map: extending over appended messages never derives a resolution.
  if (measured.basis) measuredResolutions.set(resolution, { ...measured.basis, positions: undefined });
  return measured;
}

/**
 * Each resolution's latest measurement, for the next one after the thread grew. It lives as long as the
 * memo keeps the resolution, and costs 10 bytes per message (12.5 with the buffers' room to grow,
 * ADR-0370) beside the resolution's own 32.
 */
const measuredResolutions = new WeakMap<PlanResolution, MeasureBasis>();

function fullCount(context: RenderContext, thread: Thread, resolution: PlanResolution): number {
  const { slots } = buildSlots(thread, resolution, context.exchanges, context.maker);
  applyOpaqueParts(thread, slots, context.exchanges, context.format);
  return conversationTokens(slots, context.maker);
}

function usableBasis(
  basis: MeasureBasis | undefined,
  memo: ThreadRenderMemo,
  thread: Thread,
): MeasureBasis | undefined {
  if (!basis) return undefined;
  const messages = thread.messages;
  const same =
    basis.memo === memo &&
    basis.size <= messages.length &&
    (basis.size === 0 || messages[basis.size - 1]?.id === basis.lastMessageId) &&
    // Its resolution's actions before `size` are still the ones it was measured with.
    basis.resolution.epoch === basis.epoch;
  return same ? basis : undefined;
}

/** Each message's log position by id; undefined when an id repeats (a resolution is then derived from nothing). */
function positionsOf(messages: readonly ThreadMessage[]): Map<string, number> | undefined {
  const positions = new Map<string, number>();
  for (const [position, message] of messages.entries()) positions.set(message.id, position);
  return positions.size === messages.length ? positions : undefined;
}

function extend(
  context: RenderContext,
  thread: Thread,
  resolution: PlanResolution,
  from: MeasureBasis | undefined,
  positions: Map<string, number> | undefined,
): ConversationMeasure {
  const size = thread.messages.length;
  const { exchanges, maker } = context;
  const actions = resolution.actions;
  const appended = from && appendedInPlace(context, thread, resolution, from, positions);
  if (appended) return appended;
  const store = measureStore(size);
  const visited = store.visited.subarray(0, size);
  for (const position of scanResolution(resolution, size).visit) visited[position] = 1;
  const hasSlot = store.hasSlot.subarray(0, size);
  const slotTokens = store.slotTokens.subarray(0, size);
  let sum = 0;
  const remake = (position: number) => {
    sum -= slotTokens[position]!;
    const slot = visited[position] === 1 ? slotAt(position, thread, resolution, exchanges, maker) : null;
    slotTokens[position] = slot?.tokens ?? 0;
    hasSlot[position] = slot ? 1 : 0;
    sum += slotTokens[position]!;
  };
  if (!from) {
    for (let position = 0; position < size; position += 1) if (visited[position] === 1) remake(position);
  } else {
    hasSlot.set(from.hasSlot);
    slotTokens.set(from.slotTokens);
    sum = from.sum;
    // Appended messages are new; before them, a position whose action or visit changed. A call's slot
    // carries its results, so a result that changed (or arrived) changes its call's slot.
    const stale = new Uint8Array(size);
    const staleAt: number[] = [];
    const markStale = (position: number) => {
      if (stale[position] === 1) return;
      stale[position] = 1;
      staleAt.push(position);
    };
    const before = from.resolution.actions;
    // The same resolution, extended in place with no repair reaching back since (same epoch): every action
    // before `from.size` is the object it was, and its scan only appended visits, so only the appended
    // positions (and the calls they answer) are read, not the whole history (issue #18, ADR-0352).
    const extendedInPlace = from.resolution === resolution && from.epoch === resolution.epoch;
    for (let position = extendedInPlace ? from.size : 0; position < size; position += 1) {
      if (position < from.size) {
        const now = actions[position];
        const was = before[position];
        const same = now === was || (now?.action === was?.action && now?.record === was?.record);
        if (same && visited[position] === from.visited[position]) continue;
      }
      markStale(position);
      for (const exchange of exchanges.resultsByMessage.get(position) ?? [])
        if (exchange) markStale(exchange.callMessageIndex);
    }
    staleAt.sort((left, right) => left - right);
    for (const position of staleAt) remake(position);
  }
  return measured(context, thread, resolution, positions, store, sum);
}

/**
 * `from` extended over the messages appended since, in its own buffers (ADR-0370): the same resolution
 * extended in place with no repair since (same epoch) changed no action before `from.size` and its scan
 * only appended visits, so only the appended positions are made. Undefined when that does not hold, when
 * a longer measurement already extended the buffers, or when an appended result answers a call before
 * `from.size` (its slot, which `from` still shows, changes): the caller copies then, as before.
 */
function appendedInPlace(
  context: RenderContext,
  thread: Thread,
  resolution: PlanResolution,
  from: MeasureBasis,
  positions: Map<string, number> | undefined,
): ConversationMeasure | undefined {
  const size = thread.messages.length;
  if (from.resolution !== resolution || from.epoch !== resolution.epoch) return undefined;
  if (from.store.written !== from.size) return undefined;
  const { exchanges, maker } = context;
  for (let position = from.size; position < size; position += 1)
    for (const exchange of exchanges.resultsByMessage.get(position) ?? [])
      if (exchange && exchange.callMessageIndex < from.size) return undefined;
  const store = from.store.visited.length >= size ? from.store : measureStore(size, from.store);
  store.written = size;
  store.visited.fill(0, from.size, size);
  store.hasSlot.fill(0, from.size, size);
  store.slotTokens.fill(0, from.size, size);
  const visit = scanResolution(resolution, size).visit;
  for (let index = visit.length - 1; index >= 0 && visit[index]! >= from.size; index -= 1)
    store.visited[visit[index]!] = 1;
  let sum = from.sum;
  for (let position = from.size; position < size; position += 1) {
    const slot =
      store.visited[position] === 1 ? slotAt(position, thread, resolution, exchanges, maker) : null;
    store.slotTokens[position] = slot?.tokens ?? 0;
    store.hasSlot[position] = slot ? 1 : 0;
    sum += store.slotTokens[position]!;
  }
  return measured(context, thread, resolution, positions, store, sum);
}

/** The tokens and basis of a measurement whose buffers hold `thread`'s positions. */
function measured(
  context: RenderContext,
  thread: Thread,
  resolution: PlanResolution,
  positions: Map<string, number> | undefined,
  store: MeasureStore,
  sum: number,
): ConversationMeasure {
  const size = thread.messages.length;
  const { exchanges, maker } = context;
  const hasSlot = store.hasSlot.subarray(0, size);
  const first = hasSlot.indexOf(1);
  const firstSlot =
    first < 0 ? undefined : (slotAt(first, thread, resolution, exchanges, maker) ?? undefined);
  return {
    tokens: sum + openingFor(firstSlot, maker).extraTokens,
    basis: {
      memo: context.memo,
      size,
      lastMessageId: thread.messages.at(-1)?.id,
      epoch: resolution.epoch,
      resolution,
      positions,
      store,
      visited: store.visited.subarray(0, size),
      hasSlot,
      slotTokens: store.slotTokens.subarray(0, size),
      sum,
    },
  };
}
