import { normalizePlan } from '../plan/normalize.js';
import {
  applyStep,
  type Climb,
  type Emit,
  executeBatch,
  makeEmitter,
  spanKey,
  takeBatch,
} from './ladder-steps.js';
import type { PlannerInput, PlannerOutcome, PlannerStatus, Rung, RungContext } from './planner-types.js';
import { type PlanningStart, reasonToStop, startPlanning } from './planning-start.js';
import { computeProtectedRegions } from './protected-tail.js';
import { clearRung } from './rungs/clear.js';
import { dropRung } from './rungs/drop.js';
import { externalizeRung } from './rungs/externalize.js';
import { summarizeRung } from './rungs/summarize.js';

/** Least to most aggressive (ADR-0004). */
export const LADDER: readonly Rung[] = [externalizeRung, summarizeRung, clearRung, dropRung];

/**
 * Produce the next plan: climb the ladder one proposal at a time, re-measuring the rendered prompt
 * after each, and stop as soon as the target is met and at least `clearAtLeastTokens` were freed
 * (so a thread hovering at its threshold is not compacted again on every append). A proposal
 * that fails (summarizer down, store refused) is skipped, never retried in a loop; a thread that
 * cannot be brought under target returns `target_unreachable` with the best plan found.
 *
 * @param input - The thread, its plan, the target, counting functions and adapters.
 * @returns The outcome with the plan to commit.
 * @throws The signal's reason when `input.signal` is aborted.
 */
export function planCompaction(input: PlannerInput): Promise<PlannerOutcome> {
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

function startClimb(input: PlannerInput, start: PlanningStart): Climb {
  return {
    plan: {
      ...start.base,
      threadId: input.thread.id,
      basedOnSeq: input.thread.version,
      createdAt: input.now,
      policyVersion: start.policy.version,
    },
    tokensNow: start.tokensBefore,
    // Free at least clearAtLeastTokens whenever we compact at all: no compaction loops.
    stopAt: Math.min(input.targetTokens, start.tokensBefore - start.policy.clearAtLeastTokens),
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
async function climbRung(climb: Climb, rung: Rung, input: PlannerInput, start: PlanningStart, emit: Emit) {
  const failed = new Set<string>();
  while (climb.tokensNow > climb.stopAt) {
    input.signal?.throwIfAborted();
    const context = rungContext(climb, input, start);
    const batch = takeBatch(
      rung.analyze(context).filter((candidate) => !failed.has(spanKey(candidate))),
      context.tokensToFree,
    );
    if (batch.length === 0) return;
    const succeeded = await executeBatch(rung, context, batch, failed, emit);
    if (succeeded.length > 0) await applyStep(climb, rung, succeeded, input, emit);
  }
}

function rungContext(climb: Climb, input: PlannerInput, start: PlanningStart): RungContext {
  return {
    input,
    policy: start.policy,
    plan: climb.plan,
    regions: computeProtectedRegions(
      input.thread,
      start.policy,
      input.countMessage,
      normalizePlan(climb.plan),
      input.targetTokens,
    ),
    tokensNow: climb.tokensNow,
    tokensToFree: climb.tokensNow - climb.stopAt,
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
  climb: Climb,
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
