import {
  availableForMessages,
  compactorToolNames,
  IntegrityError,
  type ProviderName,
  triggerThresholdPercent,
} from '@compactor/core';
import { recallQuery } from '@compactor/recall';
import { assembleMessages } from './assemble-messages.js';
import { fitConversation } from './budget/fit-conversation.js';
import { renderCeiling } from './budget/render-ceiling.js';
import { RENDER_FORMAT_VERSION } from './format-version.js';
import { applyOpaqueParts } from './plan/opaque-parts.js';
import { normalizedPlanFor, resolutionWarnings, resolvePlan } from './plan/resolve-plan.js';
import { buildSlots, type Slot } from './plan/slots.js';
import type { RequestByProvider } from './providers/request-types.js';
import { appendedRecall } from './recall/append-recall.js';
import {
  type PlacedRecall,
  placeAnchored,
  placeAppended,
  recallOnlyWhenAsked,
  recallPlacement,
} from './recall/place-recall.js';
import { type RecallRoom, recallAnchor, recallRooms } from './recall/recall-anchor.js';
import { appendFoldsOf, fitRecall } from './recall/render-recall.js';
import { fitRehydration } from './rehydration/fit-rehydration.js';
import { type GatheredRehydration, gatherRehydration } from './rehydration/gather-rehydration.js';
import { nextRehydrationState } from './rehydration/rehydration-state.js';
import {
  effectiveTools,
  type RenderContext,
  renderContext,
  requestOverhead,
  toolsPart,
} from './render-context.js';
import type { RenderInput, RenderReport, RenderResult } from './render-types.js';

/**
 * Render thread + plan into a provider request under budget, with automatic rehydration of
 * artifacts the agent names (which needs the async artifact store).
 *
 * @param input - Thread, plan, system prompt, tools, budget, provider and tokenizer.
 * @returns The provider request, its token totals, and a report of what was done.
 * @throws RenderBudgetExceededError when the system prompt, tools and protected tail alone exceed
 *   the ceiling; ValidationError when the plan is for another thread.
 */
export async function renderPrompt<P extends ProviderName>(input: RenderInput<P>): Promise<RenderResult<P>> {
  const context = renderContext(input);
  const gathered = await gatherRehydration({
    messages: input.thread.messages,
    exchanges: context.exchanges,
    agent: context.agent,
    plan: context.plan,
    policy: context.rehydrationPolicy,
    state: context.rehydrationState,
    turn: context.turn,
    artifactStore: input.artifactStore,
    securityContext: input.securityContext,
    tools: input.tools,
  });
  return render(input, context, gathered);
}

/**
 * The same render without rehydration: synchronous, for the hot path when nothing needs fetching.
 *
 * @param input - As for {@link renderPrompt}; the artifact store is not used.
 * @returns The provider request, its token totals, and a report of what was done.
 * @throws RenderBudgetExceededError or ValidationError, as {@link renderPrompt} does.
 */
export function renderPromptSync<P extends ProviderName>(input: RenderInput<P>): RenderResult<P> {
  return render(input, renderContext(input), undefined);
}

function render<P extends ProviderName>(
  input: RenderInput<P>,
  context: RenderContext,
  gathered: GatheredRehydration | undefined,
): RenderResult<P> {
  const { thread, tokenizer, provider } = input;
  const { maker, format, plan } = context;
  const normalized = normalizedPlanFor(thread, plan, context.cache);
  const resolution = context.memo.resolution(plan, context.agent ?? '', (previous) =>
    resolvePlan(thread, normalized, context.exchanges, context.agent, previous),
  );
  const built = buildSlots(thread, resolution, context.exchanges, maker);
  const { slots } = built;
  // Providers' opaque parts (ADR-0250): a compaction block that must open the request starts it.
  const opaque = applyOpaqueParts(thread, slots, context.exchanges, format);
  const warnings = [...resolutionWarnings(resolution), ...built.warnings, ...opaque.warnings];
  const planned = normalized?.actions.size ?? 0;
  if (resolution.plannedIdsSeen < planned) {
    warnings.push(`${planned - resolution.plannedIdsSeen} message ids in the plan are not in this thread`);
  }

  // Compactor's own tools: one rule (core's compactorToolNames, ADR-0141), stable for the thread's life
  // under the default policy, so a plan commit never changes the request's first bytes.
  const tools = effectiveTools(
    context,
    input.tools,
    compactorToolNames({
      policy: thread.policy,
      // An abridgement that stored what it replaced names read_artifact in its stand-ins too (ADR-0310).
      planExternalizes:
        normalized?.records.some(
          (record) =>
            record.kind === 'externalize' ||
            (record.kind === 'abridge' &&
              (record.artifactId !== undefined ||
                record.parts.some((part) => part.media?.some((m) => m.artifactId)))),
        ) ?? false,
      planCompacts: (normalized?.records.length ?? 0) > 0,
      offerSearchHistory: input.addSearchHistoryTool === true,
      offerReadArtifact: input.addReadArtifactTool !== false,
    }),
  );
  const toolsAdded = tools.slice(input.tools.length).map((tool) => tool.name);
  const toolPart = toolsPart(context, tools, tokenizer, provider);
  const systemTokens = maker.systemPrompt(input.system);
  const formatting = requestOverhead(context, tokenizer, provider);
  const ceiling = renderCeiling(input.budget);
  const limit = ceiling - systemTokens - toolPart.tokens - formatting;

  // The planner's target for what the conversation takes (the thread's soft threshold, with what this
  // request spends on system, tools and formatting): an emergency fit cuts back to about it.
  const messagesAt = (softThresholdPercent: number) =>
    availableForMessages({
      ...input.budget,
      softThresholdPercent,
      systemPromptTokens: systemTokens,
      toolSchemaTokens: toolPart.tokens,
      formattingOverheadTokens: formatting,
    });
  const target = messagesAt(thread.policy.softThresholdPercent);
  const { messageTokens, emergency } = fitConversation({
    thread,
    slots,
    maker,
    numbers: {
      ceiling,
      system: systemTokens,
      tools: toolPart.tokens,
      formatting,
      availableForMessages: limit,
    },
    target,
    countText: (text) => tokenizer.count(text),
    logger: input.logger,
    currentDeterminism: input.currentDeterminism,
  });

  const assembled = assembleMessages(slots, maker, plan);
  const rehydrationAllowance = gathered
    ? Math.max(
        0,
        Math.min(
          context.rehydrationPolicy.totalBudgetTokens,
          input.budget.rehydrationReserveTokens,
          limit - messageTokens,
        ),
      )
    : 0;
  const fitted = fitRehydration(
    gathered?.fetched ?? [],
    rehydrationAllowance,
    context.rehydrationPolicy.maxTokensPerArtifact,
    context.turn,
    maker,
  );
  // Recall shares the rehydration reserve: what rehydration left of its share, and of the room; with
  // `fillFreeRoom` (ADR-0162) it may use all the room the request leaves under the ceiling. Anchored at
  // the newest turn (ADR-0210), it is sized from the room the turn began with, so it holds for the turn.
  const recallPolicy = thread.policy.recall;
  const threadKind = context.memo.threadKind(thread.messages);
  const placement = recallPlacement(recallPolicy.placement, threadKind);
  const anchor = placement === 'end' ? undefined : recallAnchor(slots);
  const rooms = recallRooms({
    policy: recallPolicy,
    reserveTokens: input.budget.rehydrationReserveTokens,
    rehydrationTokens: fitted.tokens,
    freeRoom: limit - messageTokens - fitted.tokens,
    anchor,
    halve: placement === 'turn-halving',
  });
  const recallOn = input.recall !== false;
  // The room beside the messages once they reach the high-water mark, where the next commit fires.
  const highWaterRoom = () => limit - Math.max(target, messagesAt(triggerThresholdPercent(thread.policy)));
  const recallParts = (room: RecallRoom) => ({
    thread,
    plan,
    normalized,
    policy: room.fillsRoom
      ? {
          ...recallPolicy,
          topK: Math.max(recallPolicy.topK, recallPolicy.freeRoomTopK ?? recallPolicy.topK),
        }
      : recallPolicy,
    rehydration: context.rehydrationPolicy,
    allowance: room.allowance,
    reserveAllowance: Math.max(0, room.reserveAllowance),
    memo: context.memo,
    maker,
    countText: (text: string) => tokenizer.count(text),
    countJoined: tokenizer.countJoined?.bind(tokenizer),
    // A caller's own query is the asking (ADR-0320): the gate reads only what the thread's newest turn says.
    onlyWhenAsked: input.query === undefined && recallOnlyWhenAsked(recallPolicy.gate, threadKind),
  });
  const recallWith = (room: RecallRoom) =>
    fitRecall({
      ...recallParts(room),
      allowance: recallOn ? room.allowance : 0,
      ...(input.query !== undefined ? { query: input.query } : {}),
    });
  const placed: PlacedRecall =
    placement === 'append'
      ? placeAppended(
          appendedRecall({
            slots,
            plan,
            policy: recallPolicy,
            reserveTokens: input.budget.rehydrationReserveTokens,
            limit,
            messageTokens,
            rehydrationTokens: fitted.tokens,
            query: input.query,
            endQuery: input.query ?? recallQuery(thread.messages),
            // The messages grow up to the high-water mark before the next commit (ADR-0335, ADR-0435).
            ...(recallPolicy.appendWithinHighWater ? { headroom: highWaterRoom() } : {}),
            ...(recallPolicy.appendRestartWithinHighWater > 0
              ? {
                  restartedBound: Math.floor(
                    Math.max(0, highWaterRoom()) * recallPolicy.appendRestartWithinHighWater,
                  ),
                }
              : {}),
            // The basis turn's block kept while it fits up to the high-water mark (ADR-0465).
            ...(recallPolicy.appendBasisWithinHighWater > 0
              ? {
                  basisBound: Math.floor(
                    Math.max(0, highWaterRoom()) * recallPolicy.appendBasisWithinHighWater,
                  ),
                }
              : {}),
            search: (room, query, exclude, excludeKey) =>
              recallOn && room.allowance > 0
                ? fitRecall({
                    ...recallParts(room),
                    query,
                    exclude,
                    ...(excludeKey !== undefined ? { excludeKey } : {}),
                  })
                : fitRecall({ ...recallParts(room), allowance: 0 }),
            memo: appendFoldsOf({
              thread,
              plan,
              normalized,
              policy: recallPolicy,
              rehydration: context.rehydrationPolicy,
              memo: context.memo,
              searching: recallOn,
              kind: context.memo.threadKind(thread.messages),
            }),
          }),
          assembled.slotEnds,
        )
      : placeAnchored(
          recallOn ? rooms.anchored : [],
          rooms.now,
          recallWith,
          anchor,
          assembled.slotEnds,
          assembled.messages.length,
        );
  const recall = { report: placed.report };
  const messages = assembled.messages;
  // The last conversation message, before the ephemeral rehydration and recall: the cache never holds them.
  let finalIndex = messages.length - 1;
  let stableEnd = assembled.stableEnd;
  // Inside the conversation, after a turn's opening: cached with the turn from its next call on. The
  // latest position first, so the earlier positions still hold.
  for (const { at, wire } of [...placed.inside].sort((left, right) => right.at - left.at)) {
    messages.splice(at, 0, ...wire);
    // A block after the newest message (append placement) is kept on later calls: the breakpoint covers it.
    finalIndex = at <= finalIndex ? finalIndex + wire.length : at + wire.length - 1;
    if (stableEnd >= at) stableEnd += wire.length;
  }
  for (const piece of fitted.pieces) messages.push(...piece.wire);
  if (placed.end) messages.push(...placed.end.wire);

  const caching = format.provider === 'anthropic' && input.promptCaching !== false;
  const messageIndexes: number[] = [];
  if (caching) {
    if (stableEnd >= 0 && stableEnd !== finalIndex) messageIndexes.push(stableEnd);
    if (finalIndex >= 0) messageIndexes.push(finalIndex);
  }
  const breakpoints = {
    tools: caching && toolPart.wire.length > 0,
    system: caching && input.system !== '',
    messageIndexes,
  };
  const request = format.buildRequest({ system: input.system, tools: toolPart.wire, messages, breakpoints });

  const total =
    systemTokens + toolPart.tokens + formatting + messageTokens + fitted.tokens + recall.report.tokens;
  const prepended = format.prependedMessages(input.system);
  if (total > ceiling) {
    // Unreachable by construction; never hand out a request over the ceiling.
    throw new IntegrityError(`rendered ${total} tokens over the ceiling of ${ceiling}`, { total, ceiling });
  }
  const lastSeq = thread.messages.at(-1)?.seq ?? 0;
  const messagesAfterPlan = plan ? countAfter(thread.messages, plan.basedOnSeq) : 0;
  const blocked = [
    ...(gathered?.blocked ?? []),
    ...fitted.events.filter((event) => event.reason !== undefined),
  ];
  const performed = fitted.events.filter((event) => event.reason === undefined);
  const report: RenderReport = {
    formatVersion: RENDER_FORMAT_VERSION,
    provider,
    threadVersion: thread.version,
    planVersion: plan?.version ?? null,
    planBasedOnSeq: plan?.basedOnSeq ?? null,
    stale: plan !== null && lastSeq > plan.basedOnSeq,
    messagesAfterPlan,
    ceiling,
    turn: context.turn,
    counts: {
      ...built.counts,
      syntheticMessages: assembled.syntheticMessages,
      wireMessages: prepended + messages.length,
    },
    emergencyFit: emergency,
    needsCompaction: emergency !== null,
    stablePrefixTokens: systemTokens + toolPart.tokens + formatting + assembled.stableTokens,
    stablePrefixMessages: prepended + stableEnd + 1,
    cacheBreakpoints: (breakpoints.tools ? 1 : 0) + (breakpoints.system ? 1 : 0) + messageIndexes.length,
    toolsAdded,
    rehydration: {
      attempted: gathered !== undefined && context.rehydrationPolicy.enabled,
      allowance: rehydrationAllowance,
      tokens: fitted.tokens,
      performed,
      blocked,
      nextState: nextRehydrationState(
        context.rehydrationState,
        fitted.injected,
        context.turn,
        context.rehydrationPolicy.cooldownTurns,
      ),
    },
    recall: recall.report,
    opaque: opaque.report,
    warnings,
  };
  return {
    request: request as RequestByProvider[P],
    tokens: {
      system: systemTokens,
      tools: toolPart.tokens,
      formatting,
      messages: messageTokens,
      summary: summaryTokens(slots),
      rehydration: fitted.tokens,
      recall: recall.report.tokens,
      total,
    },
    report,
  };
}

/** Tokens of the summary stand-ins the request carries (an emergency fit may have dropped some). */
function summaryTokens(slots: readonly Slot[]): number {
  let tokens = 0;
  for (const slot of slots) {
    if (!slot.dropped && slot.kind === 'synthetic' && slot.record?.kind === 'summarize')
      tokens += slot.tokens;
  }
  return tokens;
}

function countAfter(messages: RenderInput['thread']['messages'], seq: number): number {
  let count = 0;
  for (let index = messages.length - 1; index >= 0 && messages[index]!.seq > seq; index -= 1) count += 1;
  return count;
}
