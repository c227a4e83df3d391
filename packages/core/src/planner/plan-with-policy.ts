import { ValidationError } from '../errors.js';
import { normalizePlan } from '../plan/normalize.js';
import { emptyPlan } from '../plan/plan.js';
import type { SummarizationRecord } from '../plan/records.js';
import { spanOf } from '../plan/span.js';
import type { CompactionMode } from '../schemas/policy.js';
import { slidingWindow } from '../strategies/sliding-window.js';
import { tokenBudgetSuffix } from '../strategies/token-budget-suffix.js';
import { turnWindow } from '../strategies/turn-window.js';
import type { DeterministicStrategyResult } from '../strategies/window-result.js';
import { renderSummary } from '../summary/render.js';
import { trimSummaryToBudget } from '../summary/trim.js';
import { planCompaction } from './ladder.js';
import { editPlan } from './plan-edit.js';
import { type PlannerInput, type PlannerOutcome, plannerOutcome } from './planner-types.js';
import { summaryBudgetFor } from './rungs/summarize.js';

export interface PolicyPlannerInput extends PlannerInput {
  /** Called when recursive summarization gets no usable summary (seed 004's failure callback). */
  onSummarizationFailure?: (details: { threadId: string; error: unknown }) => void;
}

/** Run the thread's compaction mode: the ladder, a deterministic window, or recursive summarization. */
export async function planWithPolicy(input: PolicyPlannerInput): Promise<PlannerOutcome> {
  const policy = input.policy ?? input.thread.policy;
  const mode = policy.mode;
  if (mode.kind === 'ladder') return planCompaction(input);
  const base = input.currentPlan ?? emptyPlan(input.thread.id, input.now, 0);
  const tokensBefore = input.measure(base);
  const idle = (status: PlannerOutcome['status'], reason: string): PlannerOutcome =>
    plannerOutcome({ plan: base, tokensBefore, targetTokens: input.targetTokens }, status, reason);
  if (!policy.autoCompact && !input.manual)
    return idle('disabled', 'auto-compaction is switched off for this thread');
  if (tokensBefore <= input.targetTokens && !input.manual?.force) {
    return idle('unchanged', `${tokensBefore} tokens are within the target of ${input.targetTokens}`);
  }
  const options = { countTokens: input.countMessage, basePlan: base, now: input.now };
  if (mode.kind === 'recursive-summarization') return recursiveSummarization(input, mode, idle, tokensBefore);
  const result: DeterministicStrategyResult =
    mode.kind === 'sliding-window'
      ? slidingWindow(input.thread, { maxEvents: mode.maxEvents }, options)
      : mode.kind === 'turn-window'
        ? turnWindow(input.thread, { maxTurns: mode.maxTurns }, options)
        : tokenBudgetSuffix(input.thread, { maxTokens: mode.maxTokens }, options);
  if (result.archivedIds.length === 0) return idle('unchanged', `${mode.kind}: nothing to archive`);
  const plan = {
    ...result.plan,
    originalTokenCount: tokensBefore,
    compactedTokenCount: input.measure(result.plan),
  };
  const added = result.plan.drops.slice(base.drops.length);
  return {
    ...idle(
      plan.compactedTokenCount <= input.targetTokens ? 'compacted' : 'target_unreachable',
      `${mode.kind}: archived ${result.archivedIds.length} messages`,
    ),
    plan,
    tokensAfter: plan.compactedTokenCount,
    added,
  };
}

/**
 * Seed 004's RecursiveSummarizationCompactionStrategy: the newest `maxEventsToKeep` real events
 * stay (cut snapped to a turn start); everything older becomes one rolling summary that folds in
 * the previous one; the first `overlapSize` events of the active window are shown to the
 * summarizer as context. A failed or blank summary leaves the plan unchanged.
 */
async function recursiveSummarization(
  input: PolicyPlannerInput,
  mode: Extract<CompactionMode, { kind: 'recursive-summarization' }>,
  idle: (status: PlannerOutcome['status'], reason: string) => PlannerOutcome,
  tokensBefore: number,
): Promise<PlannerOutcome> {
  if (mode.overlapSize < 0 || mode.overlapSize >= mode.maxEventsToKeep) {
    throw new ValidationError('overlapSize must be at least 0 and below maxEventsToKeep', [
      { path: 'overlapSize', message: `must be in [0, ${mode.maxEventsToKeep})` },
    ]);
  }
  const base = input.currentPlan ?? emptyPlan(input.thread.id, input.now, 0);
  const window = slidingWindow(
    input.thread,
    { maxEvents: mode.maxEventsToKeep },
    {
      countTokens: input.countMessage,
      basePlan: base,
      now: input.now,
    },
  );
  if (window.archivedIds.length === 0)
    return idle('unchanged', 'recursive summarization: nothing older than the active window');
  const archived = new Set(window.archivedIds);
  const messages = input.thread.messages.filter((message) => archived.has(message.id));
  const kept = new Set(window.keptIds);
  const overlap = input.thread.messages.filter((message) => kept.has(message.id)).slice(0, mode.overlapSize);
  const previous = normalizePlan(base).records.filter(
    (record): record is SummarizationRecord => record.kind === 'summarize',
  );
  const previousSummary = previous.at(-1)?.summary;
  let result: Awaited<ReturnType<PlannerInput['summarizer']['summarize']>>;
  try {
    result = await input.summarizer.summarize({
      tenantId: input.thread.tenantId,
      threadId: input.thread.id,
      span: spanOf(messages),
      messages: [...messages, ...overlap],
      ...(previousSummary ? { previousSummary } : {}),
      ...(input.manual?.instructions ? { instructions: input.manual.instructions } : {}),
      toolDurability: (input.policy ?? input.thread.policy).toolDurability,
    });
    if (renderSummary(result.summary).split('\n').length <= 1)
      throw new Error('the summarizer returned a blank summary');
  } catch (error) {
    input.logger?.warn(
      { err: error, threadId: input.thread.id },
      'recursive summarization failed; history left unchanged',
    );
    input.onSummarizationFailure?.({ threadId: input.thread.id, error });
    return idle('unchanged', 'recursive summarization failed; history left unchanged');
  }
  const previousIds = new Set(previous.flatMap((record) => record.span.messageIds));
  const covered = input.thread.messages.filter(
    (message) => previousIds.has(message.id) || archived.has(message.id),
  );
  const summary = trimSummaryToBudget(
    result.summary,
    summaryBudgetFor(input.policy ?? input.thread.policy, input.targetTokens),
    input.countText,
  );
  const record: SummarizationRecord = {
    kind: 'summarize',
    span: spanOf(covered),
    summary,
    summaryTokenCount: input.countText(renderSummary(summary)),
    summarizer: { id: result.summarizerId, modelId: result.modelId, costUsd: result.costUsd },
    round: Math.max(0, ...previous.map((candidate) => candidate.round)) + 1,
  };
  const plan = editPlan(
    { ...base, basedOnSeq: input.thread.version, createdAt: input.now },
    [record],
    (candidate) => candidate.kind === 'summarize',
  );
  const tokensAfter = input.measure(plan);
  return {
    ...idle(
      tokensAfter <= input.targetTokens ? 'compacted' : 'target_unreachable',
      `recursive summarization of ${messages.length} messages`,
    ),
    plan: { ...plan, originalTokenCount: tokensBefore, compactedTokenCount: tokensAfter },
    tokensAfter,
    added: [record],
    summarizerCalls: result.via === 'cache' ? 0 : 1,
    summarizerCostUsd: result.costUsd,
  };
}
