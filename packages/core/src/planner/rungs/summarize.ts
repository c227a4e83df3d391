import { withholdToolOutputs } from '../../durability/tool-sensitivity.js';
import { messagesAsRendered } from '../../plan/as-rendered.js';
import { normalizePlan } from '../../plan/normalize.js';
import type { CompactionRecord, SummarizationRecord } from '../../plan/records.js';
import { spanOf } from '../../plan/span.js';
import type { SummarizeResult } from '../../ports/summarizer.js';
import type { CompactionPolicy } from '../../schemas/policy.js';
import { mergeSummaries } from '../../summary/merge.js';
import { renderSummary } from '../../summary/render.js';
import type { StructuredSummary } from '../../summary/structured-summary.js';
import { trimSummaryToBudget } from '../../summary/trim.js';
import type { ThreadMessage } from '../../thread/thread.js';
import { type ThreadKind, threadKindOf } from '../../thread/thread-kind.js';
import { structuralTurnCandidates } from '../candidates.js';
import type { Rung, RungContext } from '../planner-types.js';
import { summaryCallSettings } from '../summary-call.js';

/**
 * What a summary is expected to cost (used only to choose how much to take): a tenth of what it
 * replaces, but never less than a short summary nor more than a long one. Summaries do not grow
 * with their span, so a flat share would make large spans look too expensive and over-compact.
 */
function expectedSummaryTokens(replacedTokens: number): number {
  return Math.min(3000, Math.max(300, Math.round(replacedTokens * 0.1)));
}

function summaryRecordsBefore(context: RungContext, firstIndex: number): SummarizationRecord[] {
  const indexById = new Map(context.input.thread.messages.map((message) => [message.id, message.index]));
  return normalizePlan(context.plan).records.filter(
    (record): record is SummarizationRecord =>
      record.kind === 'summarize' &&
      record.span.messageIds.every((id) => (indexById.get(id) ?? Number.POSITIVE_INFINITY) < firstIndex),
  );
}

/**
 * The rolling summary's size budget: the policy's `summaryBudgetTokens`, else the share of the target
 * for the thread's kind (`summaryShare`, ADR-0160: 40% for a dialogue, 15% otherwise), within
 * [500, 8000].
 *
 * @param policy - The thread's policy.
 * @param targetTokens - The planner's target.
 * @param kind - The thread's kind (`threadKindOf` over its messages); `other` when unknown.
 * @returns The budget in tokens.
 */
export function summaryBudgetFor(
  policy: CompactionPolicy,
  targetTokens: number,
  kind: ThreadKind = 'other',
): number {
  const share = policy.summaryShare?.[kind] ?? 0.15;
  return policy.summaryBudgetTokens ?? Math.min(8000, Math.max(500, Math.floor(targetTokens * share)));
}

/**
 * The messages a new rolling summary covers: those of the summaries it replaces and those it
 * summarizes now, in log order.
 */
export function coveredWith(
  messages: readonly ThreadMessage[],
  replaced: readonly SummarizationRecord[],
  summarizedIds: ReadonlySet<string>,
): ThreadMessage[] {
  const replacedIds = new Set(replaced.flatMap((record) => record.span.messageIds));
  return messages.filter((message) => replacedIds.has(message.id) || summarizedIds.has(message.id));
}

/**
 * The summarization record for a summary (the summarize rung's and recursive summarization's):
 * trimmed to its budget, counted as rendered, attributed to the summarizer that wrote it.
 */
export function summaryRecord(parts: {
  summary: StructuredSummary;
  covered: readonly ThreadMessage[];
  result: Pick<SummarizeResult, 'summarizerId' | 'modelId' | 'costUsd'>;
  round: number;
  budget: number;
  countText: (text: string) => number;
}): SummarizationRecord {
  const summary = trimSummaryToBudget(parts.summary, parts.budget, parts.countText);
  return {
    kind: 'summarize',
    span: spanOf(parts.covered),
    summary,
    summaryTokenCount: parts.countText(renderSummary(summary)),
    summarizer: {
      id: parts.result.summarizerId,
      modelId: parts.result.modelId,
      costUsd: parts.result.costUsd,
    },
    round: parts.round,
  };
}

function summaryBudget(context: RungContext): number {
  return summaryBudgetFor(
    context.policy,
    context.input.targetTokens,
    threadKindOf(context.input.thread.messages),
  );
}

function roundsSoFar(context: RungContext): number {
  return Math.max(0, ...context.plan.summarizations.map((record) => record.round));
}

/**
 * A plan is readable by every key of its tenant, so a summary is made only of what every key may
 * read: tool output whose sensitivity needs a permission reaches the summarizer as a stand-in
 * (ADR-0059). Externalized output is replaced by its pointer afterwards, as before.
 */
function tenantVisible(message: ThreadMessage, context: RungContext): ThreadMessage {
  const content = withholdToolOutputs(message.content, {
    policy: context.policy.toolDurability,
    floor: context.input.artifactDefaults?.sensitivity ?? 'internal',
    tenantId: context.input.thread.tenantId,
    permissions: [],
  });
  return content === message.content ? message : { ...message, content: [...content] };
}

/**
 * Older turns become one structured summary. Chained rounds fold every earlier summary in
 * (its pinned facts and key fields survive by construction of `mergeSummaries`), and
 * externalized results inside the span stay reachable through the summary's artifact list.
 */
export const summarizeRung: Rung = {
  name: 'summarize',
  analyze(context) {
    if (roundsSoFar(context) >= context.policy.maxSummarizationRounds) return [];
    const candidates = structuralTurnCandidates(
      context,
      (_message, action) => action === 'include' || action === 'clear' || action === 'externalize',
    );
    if (candidates.length === 0) return [];
    const taken: ThreadMessage[] = [];
    let replaced = 0;
    let estimated = 0;
    for (const candidate of candidates) {
      taken.push(...candidate.messages);
      replaced += candidate.messages.reduce(
        (total, message) => total + context.input.countMessage(message),
        0,
      );
      estimated = replaced - expectedSummaryTokens(replaced);
      if (estimated >= context.tokensToFree) break;
    }
    const first = taken[0]!;
    const last = taken.at(-1)!;
    return [
      {
        rung: 'summarize',
        span: spanOf(taken),
        estimatedTokensFreed: Math.round(estimated),
        reason: `turns ${first.turn}-${last.turn} are outside the protected tail`,
      },
    ];
  },
  async execute(context, proposal) {
    const normalized = normalizePlan(context.plan);
    const ids = new Set(proposal.span.messageIds);
    const messages = context.input.thread.messages.filter((message) => ids.has(message.id));
    const first = messages[0];
    if (!first) return null;
    const previous = summaryRecordsBefore(context, first.index);
    const previousSummary = previous.reduce<StructuredSummary | undefined>(
      (merged, record) => (merged ? mergeSummaries(merged, record.summary) : record.summary),
      undefined,
    );
    const absorbed = messages
      .map((message) => normalized.actions.get(message.id)?.record)
      .filter((record): record is CompactionRecord => record !== undefined);
    const request = {
      tenantId: context.input.thread.tenantId,
      threadId: context.input.thread.id,
      span: proposal.span,
      // Exactly what the model saw of these messages (the renderer's stand-ins, from core's one
      // source), with tool output withheld as a key without the permission sees it (ADR-0059).
      messages: messagesAsRendered(
        context.input.thread,
        messages.map((message) => tenantVisible(message, context)),
        normalized,
        context.policy.toolDurability,
      ),
      ...(previousSummary ? { previousSummary } : {}),
      ...(context.input.manual?.instructions ? { instructions: context.input.manual.instructions } : {}),
      toolDurability: context.policy.toolDurability,
      policyVersion: context.policy.version,
      ...summaryCallSettings(context.policy),
      ...(context.input.signal ? { signal: context.input.signal } : {}),
    };
    let result: SummarizeResult;
    try {
      result = await context.input.summarizer.summarize(request);
    } catch (error) {
      // `leave-unchanged` (ADR-0182): a failed summary summarizes nothing; the span stays as it is.
      if (context.policy.onSummaryFailure !== 'leave-unchanged') throw error;
      context.input.signal?.throwIfAborted();
      context.input.logger?.warn(
        { err: error, threadId: context.input.thread.id },
        'summary failed; the span is left unchanged (onSummaryFailure: leave-unchanged)',
      );
      return null;
    }
    // Whatever the summarizer returned, earlier summaries' guarantees hold and externalized artifacts stay reachable.
    let summary = previousSummary ? mergeSummaries(previousSummary, result.summary) : result.summary;
    const artifacts = absorbed.flatMap((record) =>
      record.kind === 'externalize' ? record.summary.artifacts : [],
    );
    const known = new Set(summary.artifacts.map((artifact) => artifact.artifactId));
    const missing = artifacts.filter((artifact) => !known.has(artifact.artifactId));
    if (missing.length > 0) summary = { ...summary, artifacts: [...summary.artifacts, ...missing] };
    const record = summaryRecord({
      summary,
      covered: coveredWith(context.input.thread.messages, previous, ids),
      result,
      round: roundsSoFar(context) + 1,
      budget: summaryBudget(context),
      countText: context.input.countText,
    });
    const replacedFirstIds = new Set(previous.map((candidate) => candidate.span.messageIds[0]));
    return {
      added: [record],
      removes: (candidate) =>
        (candidate.kind === 'summarize' && replacedFirstIds.has(candidate.span.messageIds[0])) ||
        candidate.span.messageIds.some((id) => ids.has(id)),
      costUsd: result.costUsd,
      summarizerCalls: result.via === 'cache' ? 0 : 1,
    };
  },
};
