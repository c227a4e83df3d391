import type { CurrentDeterminism } from '../durability/clearability.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { ArtifactSensitivity, CompactionRecord } from '../plan/records.js';
import type { SpanReference } from '../plan/span.js';
import type { ArtifactStore } from '../ports/artifact-store.js';
import type { LifecycleEventLog } from '../ports/lifecycle-log.js';
import type { Logger } from '../ports/logger.js';
import type { Summarizer } from '../ports/summarizer.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import type { Thread, ThreadMessage } from '../thread/thread.js';
import type { PlanningIndex } from './planning-index.js';
import type { ProtectedRegions } from './protected-tail.js';

/** A rung of the strategy ladder (ADR-0004). */
export type RungName = 'abridge' | 'externalize' | 'summarize' | 'clear' | 'drop';

/** Everything the planner needs: the thread, its plan, the target, how to count, and the adapters. */
export interface PlannerInput {
  thread: Thread;
  currentPlan: CompactionPlan | null;
  /** @defaultValue the thread's own policy */
  policy?: CompactionPolicy;
  /** Message tokens the rendered prompt must come down to (soft threshold minus all overheads). */
  targetTokens: number;
  /**
   * Where the trigger fires (ADR-0151): the cost model prices the calls until the prompt grows back
   * to it. Defaults to `targetTokens`.
   */
  highWaterTokens?: number;
  /** Message tokens of the prompt rendered under a plan, counted exactly as the renderer counts. */
  measure: (plan: CompactionPlan) => number;
  /** Tokens of one message as rendered (used for estimates and the protected tail). */
  countMessage: (message: ThreadMessage) => number;
  /** Tokens of a piece of text (summaries, placeholders). */
  countText: (text: string) => number;
  summarizer: Summarizer;
  artifactStore?: ArtifactStore;
  lifecycle?: LifecycleEventLog;
  logger?: Logger;
  /** ISO timestamp for the plan and events (core has no clock). */
  now: string;
  /**
   * The thread's trigger fired (ADR-0105): run the mode even when the prompt is within the target. A
   * trigger decides when, the mode decides how; the target only bounds what the ladder aims for.
   */
  triggerFired?: boolean;
  /** Manual compaction: instructions for the summarizer; `force` compacts even under target. */
  manual?: { instructions?: string; force?: boolean };
  /** Why this compaction runs (the trigger's reason), recorded on its lifecycle events for the inspector. */
  triggerReason?: string;
  /** Rehydration happened this turn: skip externalize and drop so the agent can finish (ADR-0008). */
  rehydrationHappened?: boolean;
  /** Current determinism metadata of a replayable result's source; undefined = unknown = changed. */
  currentDeterminism?: CurrentDeterminism;
  artifactDefaults?: { sensitivity?: ArtifactSensitivity; ttlSeconds?: number; encryptionKeyId?: string };
  signal?: AbortSignal;
}

/** What a rung offers to do to one span, and what it expects to free. */
export interface Proposal {
  rung: RungName;
  span: SpanReference;
  estimatedTokensFreed: number;
  reason: string;
}

/** What a rung sees: the input, the plan so far, and what is protected. */
export interface RungContext {
  input: PlannerInput;
  policy: CompactionPolicy;
  plan: CompactionPlan;
  /** What the run reads of the thread again and again, derived once (ADR-0280). */
  index: PlanningIndex;
  regions: ProtectedRegions;
  tokensNow: number;
  /** Tokens still to free to reach the target, plus the minimum a compaction must free. */
  tokensToFree: number;
}

/** The records a rung's executed proposal adds, and what it cost. */
export interface RungExecution {
  added: CompactionRecord[];
  /** Records the new ones replace (a chained summary replaces the previous one). */
  removes?: (record: CompactionRecord) => boolean;
  costUsd?: number;
  summarizerCalls?: number;
}

/** One rung of the ladder: proposes, then executes a proposal (null when it cannot). */
export interface Rung {
  readonly name: RungName;
  /**
   * @param context - The input, the plan so far and what is protected.
   * @returns Proposals, most useful first.
   */
  analyze(context: RungContext): Proposal[];
  /**
   * @param context - As for `analyze`.
   * @param proposal - One of this rung's proposals.
   * @returns The records to add, or null when the proposal cannot be carried out.
   */
  execute(context: RungContext, proposal: Proposal): Promise<RungExecution | null>;
}

/** How a planning run ended. */
export type PlannerStatus = 'unchanged' | 'compacted' | 'target_unreachable' | 'disabled';

/** A planning run's plan, figures and what it used. */
export interface PlannerOutcome {
  status: PlannerStatus;
  reason: string;
  /** The plan to commit (its `version` is still the one it was built on). */
  plan: CompactionPlan;
  tokensBefore: number;
  tokensAfter: number;
  targetTokens: number;
  added: CompactionRecord[];
  proposals: Proposal[];
  rungsUsed: RungName[];
  summarizerCalls: number;
  summarizerCostUsd: number;
}

/** An outcome that changed nothing yet: the base plan, no records, `extra` filled in by the caller. */
export function plannerOutcome(
  base: { plan: CompactionPlan; tokensBefore: number; targetTokens: number },
  status: PlannerStatus,
  reason: string,
  extra: Partial<PlannerOutcome> = {},
): PlannerOutcome {
  return {
    status,
    reason,
    plan: base.plan,
    tokensBefore: base.tokensBefore,
    tokensAfter: base.tokensBefore,
    targetTokens: base.targetTokens,
    added: [],
    proposals: [],
    rungsUsed: [],
    summarizerCalls: 0,
    summarizerCostUsd: 0,
    ...extra,
  };
}
