import { normalizePlan } from '../plan/normalize.js';
import { emptyPlan } from '../plan/plan.js';
import type { CompactionRecord } from '../plan/records.js';
import type { LifecycleEvent } from '../ports/lifecycle-log.js';
import type { LifecycleEventName } from '../schemas/events.js';
import { editPlan } from './plan-edit.js';
import {
  type PlannerInput,
  type PlannerOutcome,
  type Proposal,
  plannerOutcome,
  type Rung,
  type RungContext,
  type RungName,
} from './planner-types.js';
import { computeProtectedRegions } from './protected-tail.js';
import { clearRung } from './rungs/clear.js';
import { dropRung } from './rungs/drop.js';
import { externalizeRung } from './rungs/externalize.js';
import { summarizeRung } from './rungs/summarize.js';

/** Least to most aggressive (seed 002's ladder). */
export const LADDER: readonly Rung[] = [externalizeRung, summarizeRung, clearRung, dropRung];

const eventByRecordKind: Record<CompactionRecord['kind'], LifecycleEventName> = {
  externalize: 'compaction_externalized',
  summarize: 'compaction_summarized',
  clear: 'compaction_cleared',
  drop: 'compaction_dropped',
};

/**
 * Produce the next plan: climb the ladder one proposal at a time, re-measuring the rendered prompt
 * after each, and stop as soon as the target is met and at least `clearAtLeastTokens` were freed
 * (so a thread hovering at its threshold is not compacted again on every append). A proposal
 * that fails (summarizer down, store refused) is skipped, never retried in a loop; a thread that
 * cannot be brought under target returns `target_unreachable` with the best plan found.
 */
export async function planCompaction(input: PlannerInput): Promise<PlannerOutcome> {
  const policy = input.policy ?? input.thread.policy;
  const base = input.currentPlan ?? emptyPlan(input.thread.id, input.now, 0);
  let plan = {
    ...base,
    threadId: input.thread.id,
    basedOnSeq: input.thread.version,
    createdAt: input.now,
    policyVersion: policy.version,
  };
  const tokensBefore = input.measure(base);
  const emit = makeEmitter(input, input.targetTokens);
  const outcome = (status: PlannerOutcome['status'], reason: string, extra: Partial<PlannerOutcome> = {}) =>
    plannerOutcome({ plan: base, tokensBefore, targetTokens: input.targetTokens }, status, reason, extra);

  if (!policy.autoCompact && !input.manual)
    return outcome('disabled', 'auto-compaction is switched off for this thread');
  await emit('compaction_check_started', { tokensBefore });
  const force = input.manual?.force === true;
  if (tokensBefore <= input.targetTokens && !force) {
    await emit('compaction_completed', {
      tokensBefore,
      tokensAfter: tokensBefore,
      details: { status: 'unchanged' },
    });
    return outcome('unchanged', `${tokensBefore} tokens are within the target of ${input.targetTokens}`);
  }
  // Free at least clearAtLeastTokens whenever we compact at all: no compaction loops.
  const effectiveTarget = Math.min(input.targetTokens, tokensBefore - policy.clearAtLeastTokens);

  let tokensNow = tokensBefore;
  const added: CompactionRecord[] = [];
  const proposals: Proposal[] = [];
  const rungsUsed: RungName[] = [];
  let summarizerCalls = 0;
  let summarizerCostUsd = 0;

  for (const rung of LADDER) {
    if (!policy.strategies[rung.name]) continue;
    if (input.rehydrationHappened && (rung.name === 'externalize' || rung.name === 'drop')) continue;
    const failed = new Set<string>();
    while (tokensNow > effectiveTarget) {
      input.signal?.throwIfAborted();
      const context: RungContext = {
        input,
        policy,
        plan,
        regions: computeProtectedRegions(
          input.thread,
          policy,
          input.countMessage,
          normalizePlan(plan),
          input.targetTokens,
        ),
        tokensNow,
        tokensToFree: tokensNow - effectiveTarget,
      };
      const batch = takeBatch(
        rung.analyze(context).filter((candidate) => !failed.has(spanKey(candidate))),
        context.tokensToFree,
      );
      if (batch.length === 0) break;
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
      const succeeded = executions.flatMap((execution, index) => {
        if (execution) return [{ execution, proposal: batch[index]! }];
        failed.add(spanKey(batch[index]!));
        return [];
      });
      if (succeeded.length === 0) continue;
      const before = tokensNow;
      const newRecords = succeeded.flatMap(({ execution }) => execution.added);
      const removers = succeeded.flatMap(({ execution }) => (execution.removes ? [execution.removes] : []));
      plan = editPlan(plan, newRecords, (record) => removers.some((remove) => remove(record)));
      tokensNow = input.measure(plan);
      for (const { execution, proposal } of succeeded) {
        proposals.push(proposal);
        added.push(...execution.added);
        summarizerCalls += execution.summarizerCalls ?? 0;
        summarizerCostUsd += execution.costUsd ?? 0;
      }
      if (!rungsUsed.includes(rung.name)) rungsUsed.push(rung.name);
      for (const record of newRecords) {
        await emit(eventByRecordKind[record.kind], {
          strategy: rung.name,
          spanMessageIds: record.span.messageIds,
          tokensBefore: before,
          tokensAfter: tokensNow,
          tokensFreed: before - tokensNow,
          details: { recordsInStep: newRecords.length },
        });
      }
    }
    if (tokensNow <= effectiveTarget) break;
  }

  plan = { ...plan, originalTokenCount: tokensBefore, compactedTokenCount: tokensNow };
  const reached = tokensNow <= input.targetTokens;
  const status: PlannerOutcome['status'] =
    added.length === 0
      ? reached
        ? 'unchanged'
        : 'target_unreachable'
      : reached
        ? 'compacted'
        : 'target_unreachable';
  const reason =
    status === 'compacted'
      ? `freed ${tokensBefore - tokensNow} tokens with ${rungsUsed.join(', ')}`
      : status === 'unchanged'
        ? 'nothing outside the protected tail could be compacted'
        : `${tokensNow} tokens remain above the target of ${input.targetTokens} after every enabled rung`;
  await emit('compaction_completed', {
    tokensBefore,
    tokensAfter: tokensNow,
    tokensFreed: tokensBefore - tokensNow,
    details: {
      status,
      rungsUsed,
      summarizerCalls,
      summarizerCostUsd,
      compressionRatio: tokensNow > 0 ? tokensBefore / tokensNow : null,
    },
  });
  return outcome(status, reason, {
    plan: added.length === 0 ? base : plan,
    tokensAfter: tokensNow,
    added,
    proposals,
    rungsUsed,
    summarizerCalls,
    summarizerCostUsd,
  });
}

/** At most this many proposals run at once (artifact puts in flight, summarizer calls). */
const MAX_BATCH = 16;

function spanKey(proposal: Proposal): string {
  return proposal.span.messageIds.join(',');
}

/**
 * Oldest proposals first, just enough of them (by estimate) to free what is still needed: one
 * measurement per step instead of one per record, and independent work runs concurrently.
 */
function takeBatch(proposals: readonly Proposal[], tokensToFree: number): Proposal[] {
  const batch: Proposal[] = [];
  let estimated = 0;
  for (const proposal of proposals) {
    if (batch.length >= MAX_BATCH || estimated >= tokensToFree) break;
    batch.push(proposal);
    estimated += proposal.estimatedTokensFreed;
  }
  return batch;
}

function makeEmitter(input: PlannerInput, budgetLimit: number) {
  return async (name: LifecycleEventName, fields: Omit<Partial<LifecycleEvent>, 'name'>) => {
    if (!input.lifecycle) return;
    await input.lifecycle.append({
      tenantId: input.thread.tenantId,
      threadId: input.thread.id,
      at: input.now,
      budgetLimit,
      ...fields,
      name,
    });
  };
}
