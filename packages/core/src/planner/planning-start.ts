import { type CompactionPlan, emptyPlan } from '../plan/plan.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import {
  type PlannerInput,
  type PlannerOutcome,
  type PlannerStatus,
  plannerOutcome,
} from './planner-types.js';

/** What every compaction mode starts from. */
export interface PlanningStart {
  /** The input's policy, else the thread's. */
  policy: CompactionPolicy;
  /** The current plan, or an empty one when none was committed. */
  base: CompactionPlan;
  /** Message tokens of the prompt rendered under `base`. */
  tokensBefore: number;
  /** An outcome that keeps `base`: the status, why, and whatever the mode fills in. */
  outcome(status: PlannerStatus, reason: string, extra?: Partial<PlannerOutcome>): PlannerOutcome;
}

/**
 * The opening steps every mode shares: resolve the policy and the base plan, measure it.
 *
 * @param input the planner's input
 * @returns the policy, base plan, tokens before, and an outcome builder over them
 */
export function startPlanning(input: PlannerInput): PlanningStart {
  const policy = input.policy ?? input.thread.policy;
  const base = input.currentPlan ?? emptyPlan(input.thread.id, input.now, 0);
  const tokensBefore = input.measure(base);
  return {
    policy,
    base,
    tokensBefore,
    outcome: (status, reason, extra = {}) =>
      plannerOutcome({ plan: base, tokensBefore, targetTokens: input.targetTokens }, status, reason, extra),
  };
}

/**
 * Why no mode needs to run, checked in this one place: automatic compaction is off and nobody asked
 * (`disabled`), or the prompt is already within the target and neither a firing trigger nor a
 * forced request asks for more (`unchanged`).
 *
 * @returns the outcome to stop with, or undefined to go on
 */
export function reasonToStop(start: PlanningStart, input: PlannerInput): PlannerOutcome | undefined {
  if (!start.policy.autoCompact && !input.manual) {
    return start.outcome('disabled', 'auto-compaction is switched off for this thread');
  }
  const asked = input.triggerFired === true || input.manual?.force === true;
  if (start.tokensBefore <= input.targetTokens && !asked) {
    return start.outcome(
      'unchanged',
      `${start.tokensBefore} tokens are within the target of ${input.targetTokens}`,
    );
  }
  return undefined;
}
