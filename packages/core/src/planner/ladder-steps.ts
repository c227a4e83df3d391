import type { CompactionPlan } from '../plan/plan.js';
import type { CompactionRecord } from '../plan/records.js';
import type { LifecycleEvent } from '../ports/lifecycle-log.js';
import type { LifecycleEventName } from '../schemas/events.js';
import { editPlan } from './plan-edit.js';
import type { PlannerInput, Proposal, Rung, RungContext, RungExecution, RungName } from './planner-types.js';
import type { PlanningIndex } from './planning-index.js';

/* The ladder's steps: run a batch of one rung's proposals, fold what succeeded into the plan, account for it. */

const eventByRecordKind: Record<CompactionRecord['kind'], LifecycleEventName> = {
  abridge: 'compaction_abridged',
  externalize: 'compaction_externalized',
  summarize: 'compaction_summarized',
  clear: 'compaction_cleared',
  drop: 'compaction_dropped',
};

/** At most this many proposals run at once (artifact puts in flight, summarizer calls). */
const MAX_BATCH = 16;

export type Emit = (name: LifecycleEventName, fields: Omit<Partial<LifecycleEvent>, 'name'>) => Promise<void>;

/** What the climb has built so far. */
export interface Climb {
  plan: CompactionPlan;
  tokensNow: number;
  /** Tokens the climb stops at: the target, or lower so a compaction frees `clearAtLeastTokens`. */
  stopAt: number;
  added: CompactionRecord[];
  proposals: Proposal[];
  rungsUsed: RungName[];
  summarizerCalls: number;
  summarizerCostUsd: number;
  /** Log index of the earliest message this compaction changed so far (Infinity: none yet). */
  firstChangedIndex: number;
  /** What the run reads of the thread again and again, derived once (ADR-0280). */
  readonly index: PlanningIndex;
}

export interface Executed {
  execution: RungExecution;
  proposal: Proposal;
}

/** Run a batch concurrently; a failed proposal is reported and remembered, never retried. */
export async function executeBatch(
  rung: Rung,
  context: RungContext,
  batch: readonly Proposal[],
  failed: Set<string>,
  emit: Emit,
): Promise<Executed[]> {
  const { input } = context;
  const executions = await Promise.all(
    batch.map(async (proposal) => {
      await emit('compaction_proposal_generated', {
        strategy: rung.name,
        spanMessageIds: proposal.span.messageIds,
        details: { estimatedTokensFreed: proposal.estimatedTokensFreed, reason: proposal.reason },
      });
      try {
        return await rung.execute(context, proposal);
      } catch (error) {
        input.signal?.throwIfAborted();
        input.logger?.warn(
          { err: error, rung: rung.name, threadId: input.thread.id },
          'compaction proposal failed',
        );
        await emit('compaction_failed', {
          strategy: rung.name,
          spanMessageIds: proposal.span.messageIds,
          details: { error: error instanceof Error ? error.message : String(error) },
        });
        return null;
      }
    }),
  );
  return executions.flatMap((execution, index) => {
    const proposal = batch[index]!;
    if (execution) return [{ execution, proposal }];
    failed.add(spanKey(proposal));
    return [];
  });
}

/** Fold a step's records into the plan, measure once, and account for it. */
export async function applyStep(
  climb: Climb,
  rung: Rung,
  succeeded: readonly Executed[],
  input: PlannerInput,
  emit: Emit,
): Promise<void> {
  const before = climb.tokensNow;
  const newRecords = succeeded.flatMap(({ execution }) => execution.added);
  const removers = succeeded.flatMap(({ execution }) => (execution.removes ? [execution.removes] : []));
  climb.plan = editPlan(
    climb.plan,
    newRecords,
    (record) => removers.some((remove) => remove(record)),
    climb.index.normalized(climb.plan),
  );
  for (const record of newRecords) {
    const index = climb.index.positionOf(record.span.messageIds[0]!);
    if (index !== undefined && index < climb.firstChangedIndex) climb.firstChangedIndex = index;
  }
  climb.tokensNow = input.measure(climb.plan);
  for (const { execution, proposal } of succeeded) {
    climb.proposals.push(proposal);
    climb.added.push(...execution.added);
    climb.summarizerCalls += execution.summarizerCalls ?? 0;
    climb.summarizerCostUsd += execution.costUsd ?? 0;
  }
  if (!climb.rungsUsed.includes(rung.name)) climb.rungsUsed.push(rung.name);
  for (const record of newRecords) {
    await emit(eventByRecordKind[record.kind], {
      strategy: rung.name,
      spanMessageIds: record.span.messageIds,
      tokensBefore: before,
      tokensAfter: climb.tokensNow,
      tokensFreed: before - climb.tokensNow,
      details: { recordsInStep: newRecords.length },
    });
  }
}

export function spanKey(proposal: Proposal): string {
  return proposal.span.messageIds.join(',');
}

/**
 * Oldest proposals first, just enough of them (by estimate) to free what is still needed: one
 * measurement per step instead of one per record, and independent work runs concurrently.
 */
export function takeBatch(proposals: readonly Proposal[], tokensToFree: number): Proposal[] {
  const batch: Proposal[] = [];
  let estimated = 0;
  for (const proposal of proposals) {
    if (batch.length >= MAX_BATCH || estimated >= tokensToFree) break;
    batch.push(proposal);
    estimated += proposal.estimatedTokensFreed;
  }
  return batch;
}

/**
 * Lifecycle events of one planning run, each saying what started it: a person's request (`manual`)
 * or the thread's trigger (`automatic`), with the trigger's reason when the caller gave one.
 */
export function makeEmitter(input: PlannerInput, budgetLimit: number): Emit {
  const trigger = {
    trigger: input.manual ? 'manual' : 'automatic',
    ...(input.triggerReason ? { triggerReason: input.triggerReason } : {}),
  };
  return async (name, fields) => {
    if (!input.lifecycle) return;
    await input.lifecycle.append({
      tenantId: input.thread.tenantId,
      threadId: input.thread.id,
      at: input.now,
      budgetLimit,
      ...fields,
      details: { ...trigger, ...fields.details },
      name,
    });
  };
}
