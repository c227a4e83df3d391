import { ValidationError } from '../errors.js';
import { normalizePlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { SummarizationRecord } from '../plan/records.js';
import { spanOf } from '../plan/span.js';
import type { SummarizeResult } from '../ports/summarizer.js';
import type { CompactionMode } from '../schemas/policy.js';
import { slidingWindow } from '../strategies/sliding-window.js';
import { tokenBudgetSuffix } from '../strategies/token-budget-suffix.js';
import { turnWindow } from '../strategies/turn-window.js';
import type { DeterministicStrategyResult } from '../strategies/window-result.js';
import { renderSummary } from '../summary/render.js';
import { withOwnMessages } from '../thread/fold.js';
import { threadKindOf } from '../thread/thread-kind.js';
import { climbLadder } from './ladder.js';
import { editPlan } from './plan-edit.js';
import type { PlannerInput, PlannerOutcome } from './planner-types.js';
import { type PlanningStart, reasonToStop, startPlanning } from './planning-start.js';
import {
  appendSummaryBlock,
  blockBudget,
  coveredWith,
  summaryBudgetFor,
  summaryRecord,
} from './rungs/summarize.js';
import { summaryCallSettings } from './summary-call.js';

/** The planner's input, plus a callback for recursive summarization's failures. */
export interface PolicyPlannerInput extends PlannerInput {
  /** Called when recursive summarization gets no usable summary (ADR-0011). */
  onSummarizationFailure?: (details: { threadId: string; error: unknown }) => void;
}

type WindowMode = Extract<CompactionMode, { kind: 'sliding-window' | 'turn-window' | 'token-budget' }>;
type RecursiveMode = Extract<CompactionMode, { kind: 'recursive-summarization' }>;

/**
 * Run the thread's compaction mode: the ladder, a deterministic window, or recursive summarization.
 * Every mode opens the same way (`startPlanning`, then `reasonToStop`), once.
 *
 * @param given - As for `planCompaction`, plus the failure callback.
 * @returns The outcome with the plan to commit (unchanged when recursive summarization fails).
 * @throws ValidationError when a recursive mode's `overlapSize` is not below `maxEventsToKeep`.
 */
export async function planWithPolicy(given: PolicyPlannerInput): Promise<PlannerOutcome> {
  // Planning reads the thread's messages across awaits (summarizer, artifact store): an array a fold
  // grows in place is copied first, so a newer fold made meanwhile is not seen (ADR-0375).
  const input = { ...given, thread: withOwnMessages(given.thread) };
  const start = startPlanning(input);
  const mode = start.policy.mode;
  if (mode.kind === 'ladder') return climbLadder(input, start);
  const stop = reasonToStop(start, input);
  if (stop) return stop;
  if (mode.kind === 'recursive-summarization') return recursiveSummarization(input, start, mode);
  return deterministicWindow(input, start, mode);
}

function windowOf(input: PlannerInput, start: PlanningStart, mode: WindowMode): DeterministicStrategyResult {
  const options = { countTokens: input.countMessage, basePlan: start.base, now: input.now };
  if (mode.kind === 'sliding-window')
    return slidingWindow(input.thread, { maxEvents: mode.maxEvents }, options);
  if (mode.kind === 'turn-window') return turnWindow(input.thread, { maxTurns: mode.maxTurns }, options);
  return tokenBudgetSuffix(input.thread, { maxTokens: mode.maxTokens }, options);
}

/** A deterministic window: archive (drop) everything outside it. */
function deterministicWindow(input: PlannerInput, start: PlanningStart, mode: WindowMode): PlannerOutcome {
  const result = windowOf(input, start, mode);
  if (result.archivedIds.length === 0) return start.outcome('unchanged', `${mode.kind}: nothing to archive`);
  const plan = {
    ...result.plan,
    originalTokenCount: start.tokensBefore,
    compactedTokenCount: input.measure(result.plan),
  };
  return start.outcome(
    plan.compactedTokenCount <= input.targetTokens ? 'compacted' : 'target_unreachable',
    `${mode.kind}: archived ${result.archivedIds.length} messages`,
    { plan, tokensAfter: plan.compactedTokenCount, added: result.plan.drops.slice(start.base.drops.length) },
  );
}

/**
 * Recursive summarization (ADR-0011): the newest `maxEventsToKeep` real events
 * stay (cut snapped to a turn start); everything older becomes one rolling summary that folds in
 * the previous one; the first `overlapSize` events of the active window are shown to the
 * summarizer as context. A failed or blank summary leaves the plan unchanged.
 */
async function recursiveSummarization(
  input: PolicyPlannerInput,
  start: PlanningStart,
  mode: RecursiveMode,
): Promise<PlannerOutcome> {
  if (mode.overlapSize < 0 || mode.overlapSize >= mode.maxEventsToKeep) {
    throw new ValidationError('overlapSize must be at least 0 and below maxEventsToKeep', [
      { path: 'overlapSize', message: `must be in [0, ${mode.maxEventsToKeep})` },
    ]);
  }
  const windowOptions = { countTokens: input.countMessage, basePlan: start.base, now: input.now };
  const window =
    mode.maxTokensToKeep !== undefined
      ? tokenBudgetSuffix(input.thread, { maxTokens: mode.maxTokensToKeep }, windowOptions)
      : slidingWindow(input.thread, { maxEvents: mode.maxEventsToKeep }, windowOptions);
  if (window.archivedIds.length === 0)
    return start.outcome('unchanged', 'recursive summarization: nothing older than the active window');
  const append = start.policy.summaryComposition === 'append';
  const previous = normalizePlan(start.base).records.filter(
    (record): record is SummarizationRecord => record.kind === 'summarize',
  );
  const alreadySummarized = new Set(previous.flatMap((record) => record.span.messageIds));
  // Appending (ADR-0150), the new checkpoint covers only what no earlier one does.
  const archived = new Set(
    append ? window.archivedIds.filter((id) => !alreadySummarized.has(id)) : window.archivedIds,
  );
  if (archived.size === 0)
    return start.outcome('unchanged', 'recursive summarization: everything older is already summarized');
  const messages = input.thread.messages.filter((message) => archived.has(message.id));
  const kept = new Set(window.keptIds);
  const overlap = input.thread.messages.filter((message) => kept.has(message.id)).slice(0, mode.overlapSize);
  const previousSummary = append ? undefined : previous.at(-1)?.summary;
  let result: SummarizeResult;
  try {
    result = await input.summarizer.summarize({
      tenantId: input.thread.tenantId,
      threadId: input.thread.id,
      span: spanOf(messages),
      messages: [...messages, ...overlap],
      ...(previousSummary ? { previousSummary } : {}),
      ...(input.manual?.instructions ? { instructions: input.manual.instructions } : {}),
      toolDurability: start.policy.toolDurability,
      policyVersion: start.policy.version,
      ...summaryCallSettings(start.policy),
      ...(mode.systemPrompt ? { systemPrompt: mode.systemPrompt } : {}),
    });
    if (renderSummary(result.summary).split('\n').length <= 1)
      throw new Error('the summarizer returned a blank summary');
  } catch (error) {
    input.logger?.warn(
      { err: error, threadId: input.thread.id },
      'recursive summarization failed; history left unchanged',
    );
    input.onSummarizationFailure?.({ threadId: input.thread.id, error });
    return start.outcome('unchanged', 'recursive summarization failed; history left unchanged');
  }
  const kind = threadKindOf(input.thread.messages);
  const budget = summaryBudgetFor(start.policy, input.targetTokens, kind);
  const record = summaryRecord({
    summary: result.summary,
    covered: append ? messages : coveredWith(input.thread.messages, previous, archived),
    result,
    round: Math.max(0, ...previous.map((candidate) => candidate.round)) + 1,
    budget: append ? blockBudget(budget, previous, start.policy, input.countText) : budget,
    countText: input.countText,
    ...(append
      ? { originalTokens: messages.reduce((total, message) => total + input.countMessage(message), 0) }
      : {}),
  });
  const base = {
    ...start.base,
    basedOnSeq: input.thread.version,
    createdAt: input.now,
    policyVersion: start.policy.version,
  };
  let plan: CompactionPlan;
  let added: SummarizationRecord[];
  if (append) {
    const blocks = appendSummaryBlock(previous, record, start.policy, {
      budget,
      countText: input.countText,
      messages: input.thread.messages,
      kind,
    });
    const removedFirstIds = new Set([...blocks.removed].map((candidate) => candidate.span.messageIds[0]));
    added = blocks.added;
    plan = editPlan(
      base,
      added,
      (candidate) => candidate.kind === 'summarize' && removedFirstIds.has(candidate.span.messageIds[0]),
    );
  } else {
    added = [record];
    plan = editPlan(base, added, (candidate) => candidate.kind === 'summarize');
  }
  const tokensAfter = input.measure(plan);
  return start.outcome(
    tokensAfter <= input.targetTokens ? 'compacted' : 'target_unreachable',
    `recursive summarization of ${messages.length} messages`,
    {
      plan: { ...plan, originalTokenCount: start.tokensBefore, compactedTokenCount: tokensAfter },
      tokensAfter,
      added,
      summarizerCalls: result.via === 'cache' ? 0 : 1,
      summarizerCostUsd: result.costUsd,
    },
  );
}
