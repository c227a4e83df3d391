import { withOwnMessages } from '../thread/fold.js';
import {
  callsBeforeNextCompaction,
  chooseCompactionDepth,
  type DepthDecision,
  growthPerCall,
  stableSummaryTokens,
  stepPays,
} from './cache-cost.js';
import {
  applyStep,
  type Climb,
  type Emit,
  executeBatch,
  makeEmitter,
  spanKey,
  takeBatch,
} from './ladder-steps.js';
import { restampedPlan } from './plan-edit.js';
import type {
  PlannerInput,
  PlannerOutcome,
  PlannerStatus,
  Proposal,
  Rung,
  RungContext,
} from './planner-types.js';
import { createPlanningIndex } from './planning-index.js';
import { type PlanningStart, reasonToStop, startPlanning } from './planning-start.js';
import { computeProtectedRegions } from './protected-tail.js';
import { abridgeRung } from './rungs/abridge.js';
import { clearRung } from './rungs/clear.js';
import { dropRung } from './rungs/drop.js';
import { externalizeRung } from './rungs/externalize.js';
import { summarizeRung } from './rungs/summarize.js';

/** Least to most aggressive (ADR-0004); abridging old media and pastes comes first (ADR-0265). */
export const LADDER: readonly Rung[] = [abridgeRung, externalizeRung, summarizeRung, clearRung, dropRung];

/**
 * Produce the next plan: climb the ladder one proposal at a time, re-measuring the rendered prompt
 * after each, and stop as soon as the target is met and at least `clearAtLeastTokens` were freed
 * (so a thread hovering at its threshold is not compacted again on every append). A proposal
 * that fails (summarizer down, store refused) is skipped, never retried in a loop; a thread that
 * cannot be brought under target returns `target_unreachable` with the best plan found.
 *
 * @param given - The thread, its plan, the target, counting functions and adapters.
 * @returns The outcome with the plan to commit.
 * @throws The signal's reason when `input.signal` is aborted.
 */
export function planCompaction(given: PlannerInput): Promise<PlannerOutcome> {
  // As `planWithPolicy`: the messages are read across awaits, so a growable array is copied (ADR-0375).
  const input = { ...given, thread: withOwnMessages(given.thread) };
  return climbLadder(input, startPlanning(input));
}

/** The ladder from an opened planning (`planWithPolicy` opens once and calls this for ladder mode). */
export async function climbLadder(input: PlannerInput, start: PlanningStart): Promise<PlannerOutcome> {
  const emit = makeEmitter(input, input.targetTokens);
  const { tokensBefore } = start;
  const stop = reasonToStop(start, input);
  if (stop?.status === 'disabled') return stop;
  await emit('compaction_check_started', { tokensBefore });
  if (stop) {
    await emit('compaction_completed', {
      tokensBefore,
      tokensAfter: tokensBefore,
      details: { status: 'unchanged' },
    });
    return stop;
  }
  const climb = startClimb(input, start);
  for (const rung of enabledRungs(input, start)) {
    await climbRung(climb, rung, input, start, emit);
    if (climb.tokensNow <= climb.stopAt) break;
  }
  return finishClimb(climb, input, start, emit);
}

/** What the climb adds to the ladder's state: the cost model's depth and what a step must pay. */
interface PricedClimb extends Climb {
  /** Where the climb would stop without the cost model: the target, or `clearAtLeastTokens` down. */
  minimalStop: number;
  depth: DepthDecision | undefined;
  /** Calls expected before the next compaction at the chosen depth. */
  calls: number;
}

/**
 * How deep to go (ADR-0151): at least to the target and `clearAtLeastTokens` below where the climb
 * started; with the cost model on, down to the low-water mark when the model prices that cheaper per call.
 */
function chooseDepth(
  input: PlannerInput,
  start: PlanningStart,
): Pick<PricedClimb, 'stopAt' | 'minimalStop' | 'depth' | 'calls'> {
  const { policy } = start;
  const minimalStop = Math.min(input.targetTokens, start.tokensBefore - policy.clearAtLeastTokens);
  const growth = growthPerCall(input.thread.messages, input.countMessage);
  const cycle = {
    highWater: Math.max(input.targetTokens, input.highWaterTokens ?? 0),
    growthPerCall: growth,
  };
  const lowWater = Math.floor(input.targetTokens * policy.lowWaterPercent);
  if (!policy.cacheCostModel || lowWater >= minimalStop) {
    return {
      stopAt: minimalStop,
      minimalStop,
      depth: undefined,
      calls: callsBeforeNextCompaction({ ...cycle, low: minimalStop }),
    };
  }
  // Summary blocks already in the prompt stay byte-identical (ADR-0150): the compaction rewrites what follows.
  const stablePrefix = stableSummaryTokens(input.currentPlan);
  const depth = chooseCompactionDepth([minimalStop, lowWater], { ...cycle, stablePrefix });
  return {
    stopAt: depth.stopAt,
    minimalStop,
    depth,
    calls: callsBeforeNextCompaction({ ...cycle, low: depth.stopAt }),
  };
}

/**
 * A step below the target must pay for the cache it breaks: a clear batch that changes messages before
 * what this compaction already rewrites pays the write of the difference, against the cached reads it
 * saves until the next compaction (LangChain's `clear_at_least`: clear in batches worth the break).
 */
function batchPays(climb: PricedClimb, batch: readonly Proposal[], input: PlannerInput): boolean {
  if (climb.tokensNow > input.targetTokens || !climb.depth) return true;
  const first = Math.min(
    ...batch.map(
      (proposal) => climb.index.positionOf(proposal.span.messageIds[0]!) ?? Number.POSITIVE_INFINITY,
    ),
  );
  const end = Math.min(climb.firstChangedIndex, input.thread.messages.length);
  let extraRewrittenTokens = 0;
  for (let position = first; position < end; position += 1)
    extraRewrittenTokens += input.countMessage(input.thread.messages[position]!);
  const tokensFreed = batch.reduce((total, proposal) => total + proposal.estimatedTokensFreed, 0);
  return stepPays({ tokensFreed, extraRewrittenTokens, calls: climb.calls });
}

function startClimb(input: PlannerInput, start: PlanningStart): PricedClimb {
  return {
    ...chooseDepth(input, start),
    index: createPlanningIndex(input.thread),
    firstChangedIndex: Number.POSITIVE_INFINITY,
    plan: restampedPlan(start.base, {
      threadId: input.thread.id,
      basedOnSeq: input.thread.version,
      createdAt: input.now,
      policyVersion: start.policy.version,
    }),
    tokensNow: start.tokensBefore,
    added: [],
    proposals: [],
    rungsUsed: [],
    summarizerCalls: 0,
    summarizerCostUsd: 0,
  };
}

/** The policy's rungs in ladder order; after a rehydration, not externalize or drop (ADR-0008). */
function enabledRungs(input: PlannerInput, start: PlanningStart): Rung[] {
  return LADDER.filter(
    (rung) =>
      start.policy.strategies[rung.name] &&
      !(input.rehydrationHappened && (rung.name === 'externalize' || rung.name === 'drop')),
  );
}

/** Take batches of one rung's proposals until the climb stops or the rung has nothing left. */
async function climbRung(
  climb: PricedClimb,
  rung: Rung,
  input: PlannerInput,
  start: PlanningStart,
  emit: Emit,
) {
  const failed = new Set<string>();
  // Dropping content is never worth the cache (ADR-0151): the drop rung stops where it would without the model.
  const stopAt = rung.name === 'drop' ? Math.max(climb.stopAt, climb.minimalStop) : climb.stopAt;
  while (climb.tokensNow > stopAt) {
    input.signal?.throwIfAborted();
    const context = rungContext(climb, input, start, stopAt);
    const batch = takeBatch(
      rung.analyze(context).filter((candidate) => !failed.has(spanKey(candidate))),
      context.tokensToFree,
    );
    if (batch.length === 0) return;
    if (rung.name === 'clear' && !batchPays(climb, batch, input)) return;
    const succeeded = await executeBatch(rung, context, batch, failed, emit);
    if (succeeded.length > 0) await applyStep(climb, rung, succeeded, input, emit);
  }
}

function rungContext(climb: Climb, input: PlannerInput, start: PlanningStart, stopAt: number): RungContext {
  return {
    input,
    policy: start.policy,
    plan: climb.plan,
    index: climb.index,
    regions: computeProtectedRegions(
      input.thread,
      start.policy,
      input.countMessage,
      climb.index.normalized(climb.plan),
      input.targetTokens,
      climb.index,
    ),
    tokensNow: climb.tokensNow,
    tokensToFree: climb.tokensNow - stopAt,
  };
}

/** Compacted only when something was added and the target was reached. */
function climbStatus(climb: Climb, targetTokens: number): PlannerStatus {
  const reached = climb.tokensNow <= targetTokens;
  if (!reached) return 'target_unreachable';
  return climb.added.length > 0 ? 'compacted' : 'unchanged';
}

function climbReason(
  status: PlannerStatus,
  climb: Climb,
  start: PlanningStart,
  targetTokens: number,
): string {
  if (status === 'compacted') {
    return `freed ${start.tokensBefore - climb.tokensNow} tokens with ${climb.rungsUsed.join(', ')}`;
  }
  if (status === 'unchanged') return 'nothing outside the protected tail could be compacted';
  return `${climb.tokensNow} tokens remain above the target of ${targetTokens} after every enabled rung`;
}

async function finishClimb(
  climb: PricedClimb,
  input: PlannerInput,
  start: PlanningStart,
  emit: Emit,
): Promise<PlannerOutcome> {
  const { tokensBefore } = start;
  const tokensAfter = climb.tokensNow;
  const status = climbStatus(climb, input.targetTokens);
  await emit('compaction_completed', {
    tokensBefore,
    tokensAfter,
    tokensFreed: tokensBefore - tokensAfter,
    details: {
      status,
      rungsUsed: climb.rungsUsed,
      summarizerCalls: climb.summarizerCalls,
      summarizerCostUsd: climb.summarizerCostUsd,
      compressionRatio: tokensAfter > 0 ? tokensBefore / tokensAfter : null,
      ...(climb.depth
        ? { cacheCostModel: { stopAt: climb.stopAt, candidates: climb.depth.candidates } }
        : {}),
    },
  });
  const plan = { ...climb.plan, originalTokenCount: tokensBefore, compactedTokenCount: tokensAfter };
  return start.outcome(status, climbReason(status, climb, start, input.targetTokens), {
    plan: climb.added.length === 0 ? start.base : plan,
    tokensAfter,
    added: climb.added,
    proposals: climb.proposals,
    rungsUsed: climb.rungsUsed,
    summarizerCalls: climb.summarizerCalls,
    summarizerCostUsd: climb.summarizerCostUsd,
  });
}
