import { withholdToolOutputs } from '../../durability/tool-sensitivity.js';
import { messagesAsRendered } from '../../plan/as-rendered.js';
import type { CompactionRecord, SummarizationRecord } from '../../plan/records.js';
import { spanOf } from '../../plan/span.js';
import type { SummarizeResult } from '../../ports/summarizer.js';
import type { CompactionPolicy } from '../../schemas/policy.js';
import { mergeSummaries } from '../../summary/merge.js';
import type { StructuredSummary } from '../../summary/structured-summary.js';
import type { ThreadMessage } from '../../thread/thread.js';
import type { ThreadKind } from '../../thread/thread-kind.js';
import { abridgedSummaryArtifacts } from '../abridge-parts.js';
import { structuralTurnCandidates } from '../candidates.js';
import type { Rung, RungContext } from '../planner-types.js';
import {
  compressionRatioOf,
  consolidateSummaryBlocks,
  rememberBlockTokens,
  type SpanPositions,
  summaryBlockTokens,
  trimBlockCounted,
} from '../summary-blocks.js';
import { summaryCallSettings } from '../summary-call.js';

/**
 * What a summary is expected to cost (used only to choose how much to take): a tenth of what it
 * replaces, but never less than a short summary nor more than a long one (3,000 tokens, or the summary
 * budget when that is larger: a large span's summary fills its budget, and an estimate below it made a
 * deep compaction take a second step). Summaries do not grow
 * with their span, so a flat share would make large spans look too expensive and over-compact.
 */
function expectedSummaryTokens(replacedTokens: number, budget: number): number {
  return Math.min(Math.max(3000, budget), Math.max(300, Math.round(replacedTokens * 0.1)));
}

function summaryRecordsBefore(context: RungContext, firstIndex: number): SummarizationRecord[] {
  const { index } = context;
  // Positions read once per record and run (a kept block is not read again at every step).
  return index
    .normalized(context.plan)
    .records.filter(
      (record): record is SummarizationRecord =>
        record.kind === 'summarize' &&
        index.recordPositions(record).every((position) => position >= 0 && position < firstIndex),
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
 * trimmed so that its text as rendered, header line included, fits its budget, counted the same way
 * (ADR-0260), attributed to the summarizer that wrote it.
 */
export function summaryRecord(parts: {
  summary: StructuredSummary;
  covered: readonly ThreadMessage[];
  result: Pick<SummarizeResult, 'summarizerId' | 'modelId' | 'costUsd'>;
  round: number;
  budget: number;
  countText: (text: string) => number;
  /** Tokens of the covered messages before summarization (the block's compression ratio, ADR-0150). */
  originalTokens?: number;
}): SummarizationRecord {
  const span = spanOf(parts.covered);
  const { summary, tokens: summaryTokenCount } = trimBlockCounted(
    parts.summary,
    span,
    parts.budget,
    parts.countText,
  );
  const record: SummarizationRecord = {
    kind: 'summarize',
    span,
    summary,
    summaryTokenCount,
    summarizer: {
      id: parts.result.summarizerId,
      modelId: parts.result.modelId,
      costUsd: parts.result.costUsd,
    },
    round: parts.round,
    ...(parts.originalTokens !== undefined
      ? {
          originalTokenCount: parts.originalTokens,
          compressionRatio: compressionRatioOf(parts.originalTokens, summaryTokenCount),
        }
      : {}),
  };
  // The blocks' budget and consolidation read this count again at every later step (ADR-0381).
  rememberBlockTokens(record, parts.countText, summaryTokenCount);
  return record;
}

/**
 * What a new block may take (ADR-0150): what the summary budget leaves beside the blocks already in the
 * plan, but at least an even share of the budget (`budget / maxSummaryBlocks`), so a block always says
 * something; when the blocks then exceed the budget, consolidation merges the oldest.
 *
 * @param budget - The summary budget.
 * @param records - The plan's records (its summary blocks are counted).
 * @param policy - For `maxSummaryBlocks`.
 * @param countText - Counts rendered text (the blocks as rendered, `summaryBlockTokens`).
 * @returns The new block's budget.
 */
export function blockBudget(
  budget: number,
  records: readonly CompactionRecord[],
  policy: CompactionPolicy,
  countText: (text: string) => number,
): number {
  const used = summaryBlockTokens(
    records.filter((record): record is SummarizationRecord => record.kind === 'summarize'),
    countText,
  );
  return Math.max(Math.floor(budget / policy.maxSummaryBlocks), budget - used);
}

/**
 * Append a new block to the summary blocks and consolidate them within their caps (ADR-0150): the
 * execution adds the new block (and any merged one) and removes the blocks merged away; blocks within
 * the caps are left as they are.
 *
 * @param existing - The plan's summary blocks, in log order.
 * @param block - The new block.
 * @param policy - For `maxSummaryBlocks`.
 * @param parts - The summary budget, the counter and the log (and, from a planning run, its positions).
 * @returns What to add and what to remove.
 */
export function appendSummaryBlock(
  existing: readonly SummarizationRecord[],
  block: SummarizationRecord,
  policy: CompactionPolicy,
  parts: {
    budget: number;
    countText: (text: string) => number;
    messages: readonly ThreadMessage[];
    positionOf?: (id: string) => number | undefined;
    /** A planning run's positions of the blocks' spans (ADR-0350). */
    spanPositions?: SpanPositions;
    /** The thread's kind: a coding session's budget merges join enough of the oldest blocks (ADR-0403). */
    kind?: ThreadKind;
  },
): { added: SummarizationRecord[]; removed: Set<SummarizationRecord>; merged: number } {
  let positionOf = parts.positionOf;
  if (!positionOf) {
    const indexById = new Map(parts.messages.map((message) => [message.id, message.index]));
    positionOf = (id) => indexById.get(id);
  }
  const position = positionOf;
  const indexOf = (id: string) => position(id) ?? Number.POSITIVE_INFINITY;
  const ordered = [...existing, block].sort(
    (left, right) => indexOf(left.span.messageIds[0]!) - indexOf(right.span.messageIds[0]!),
  );
  const { blocks, merged } = consolidateSummaryBlocks(
    ordered,
    {
      maxBlocks: policy.maxSummaryBlocks,
      budgetTokens: parts.budget,
      countText: parts.countText,
      countCapMerges: policy.summaryBlockMerge,
      joinOldest: parts.kind === 'coding',
      ...(parts.spanPositions ? { spanPositions: parts.spanPositions } : {}),
    },
    indexOf,
  );
  const kept = new Set(blocks);
  return {
    added: blocks.filter((candidate) => !existing.includes(candidate)),
    removed: new Set(existing.filter((candidate) => !kept.has(candidate))),
    merged,
  };
}

function summaryBudget(context: RungContext): number {
  return summaryBudgetFor(context.policy, context.input.targetTokens, context.index.kind);
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
    const candidates = structuralTurnCandidates(context, { splitTurn: context.policy.splitTurnSummaries });
    const taken: ThreadMessage[] = [];
    let replaced = 0;
    let estimated = 0;
    for (const candidate of candidates) {
      taken.push(...candidate.messages);
      replaced += candidate.messages.reduce(
        (total, message) => total + context.input.countMessage(message),
        0,
      );
      estimated = replaced - expectedSummaryTokens(replaced, summaryBudget(context));
      if (estimated >= context.tokensToFree) break;
    }
    if (taken.length === 0) return [];
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
    const normalized = context.index.normalized(context.plan);
    const ids = new Set(proposal.span.messageIds);
    const messages = spanMessages(context, ids);
    const first = messages[0];
    if (!first) return null;
    const append = context.policy.summaryComposition === 'append';
    const previous = summaryRecordsBefore(context, first.index);
    // Appending, the new block covers its span alone: earlier blocks stay in the prompt as they are.
    const previousSummary = append
      ? undefined
      : previous.reduce<StructuredSummary | undefined>(
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
        context.index.byId,
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
    const artifacts = absorbed.flatMap((record) => {
      if (record.kind === 'externalize') return record.summary.artifacts;
      // An abridged message's full text and stored media stay reachable once it is summarized (ADR-0265, ADR-0330).
      if (record.kind === 'abridge') return abridgedSummaryArtifacts(record);
      return [];
    });
    const known = new Set(summary.artifacts.map((artifact) => artifact.artifactId));
    const missing = artifacts.filter((artifact) => !known.has(artifact.artifactId));
    if (missing.length > 0) summary = { ...summary, artifacts: [...summary.artifacts, ...missing] };
    const covered = append ? messages : coveredWith(context.input.thread.messages, previous, ids);
    const record = summaryRecord({
      summary,
      covered,
      result,
      round: roundsSoFar(context) + 1,
      budget: append
        ? blockBudget(summaryBudget(context), normalized.records, context.policy, context.input.countText)
        : summaryBudget(context),
      countText: context.input.countText,
      originalTokens: originalTokensOf(covered, previous, append, context),
    });
    const execution = {
      costUsd: result.costUsd,
      summarizerCalls: result.via === 'cache' ? 0 : 1,
    };
    if (append) {
      const blocks = normalized.records.filter(
        (candidate): candidate is SummarizationRecord => candidate.kind === 'summarize',
      );
      const { added, removed } = appendSummaryBlock(blocks, record, context.policy, {
        budget: summaryBudget(context),
        countText: context.input.countText,
        messages: context.input.thread.messages,
        positionOf: context.index.positionOf,
        kind: context.index.kind,
        spanPositions: {
          of: (block) => context.index.recordPositions(block),
          remember: (block, positions) => context.index.rememberPositions(block, positions),
        },
      });
      const removedFirstIds = new Set([...removed].map((candidate) => candidate.span.messageIds[0]));
      return {
        ...execution,
        added,
        removes: (candidate: CompactionRecord) =>
          (candidate.kind === 'summarize' && removedFirstIds.has(candidate.span.messageIds[0])) ||
          candidate.span.messageIds.some((id) => ids.has(id)),
      };
    }
    const replacedFirstIds = new Set(previous.map((candidate) => candidate.span.messageIds[0]));
    return {
      ...execution,
      added: [record],
      removes: (candidate: CompactionRecord) =>
        (candidate.kind === 'summarize' && replacedFirstIds.has(candidate.span.messageIds[0])) ||
        candidate.span.messageIds.some((id) => ids.has(id)),
    };
  },
};

/** The thread's messages among `ids`, in log order, looked up rather than filtered from the whole log. */
function spanMessages(context: RungContext, ids: ReadonlySet<string>): ThreadMessage[] {
  const messages: ThreadMessage[] = [];
  for (const id of ids) {
    const message = context.index.byId.get(id);
    if (message) messages.push(message);
  }
  return messages.sort((left, right) => left.index - right.index);
}

/** Original tokens of a new record: its own messages, plus (rolling) those of the records it replaces. */
function originalTokensOf(
  covered: readonly ThreadMessage[],
  previous: readonly SummarizationRecord[],
  append: boolean,
  context: RungContext,
): number {
  if (!append && previous.some((record) => record.originalTokenCount !== undefined)) {
    const replacedIds = new Set(previous.flatMap((record) => record.span.messageIds));
    const fresh = covered.filter((message) => !replacedIds.has(message.id));
    return (
      previous.reduce((total, record) => total + (record.originalTokenCount ?? 0), 0) +
      fresh.reduce((total, message) => total + context.input.countMessage(message), 0)
    );
  }
  return covered.reduce((total, message) => total + context.input.countMessage(message), 0);
}
