import type { SummarizationRecord } from '../plan/records.js';
import { mergeSummaries } from '../summary/merge.js';
import { renderSummary } from '../summary/render.js';
import { trimSummaryToBudget } from '../summary/trim.js';

/*
 * Append-only summary blocks (ADR-0150). Each summarization round adds one block covering only the
 * span it summarized; earlier blocks are left as they are, so the prompt they render stays byte for
 * byte what the provider cached. Blocks are consolidated (two merged into one: the oldest, or for the
 * count cap the newest when the policy says so, ADR-0211) only when there are more than `maxSummaryBlocks` or they exceed the summary budget, and then down to a low-water
 * mark (half the budget) so the next consolidation is many rounds away.
 */

/** What consolidation needs: the caps and how to count a rendered summary. */
export interface SummaryBlockLimits {
  maxBlocks: number;
  /** Tokens all blocks together may take (the summary budget). */
  budgetTokens: number;
  countText: (text: string) => number;
  /**
   * Which blocks the count cap merges (ADR-0211): `oldest` (the two oldest, rewriting the start of
   * the prompt) or `newest` (the two newest: the round's new block joins the one before it, so only
   * what follows the older blocks is rewritten and the prompt cache keeps them).
   * @defaultValue 'oldest'
   */
  countCapMerges?: 'oldest' | 'newest';
}

/** The blocks after consolidation, and how many of the old ones were merged away. */
export interface ConsolidatedBlocks {
  blocks: SummarizationRecord[];
  /** Blocks merged into another (0: nothing was rewritten). */
  merged: number;
}

/**
 * The compression ratio of a block: original tokens over summary tokens (0 for an empty summary).
 *
 * @param originalTokens - Tokens the span had as rendered.
 * @param summaryTokens - Tokens of the rendered summary.
 * @returns The ratio.
 */
export function compressionRatioOf(originalTokens: number, summaryTokens: number): number {
  return summaryTokens > 0 ? originalTokens / summaryTokens : 0;
}

/** Total rendered tokens of the blocks. */
export function summaryBlockTokens(blocks: readonly SummarizationRecord[]): number {
  return blocks.reduce((total, block) => total + block.summaryTokenCount, 0);
}

/**
 * One block from two adjacent ones (older first): the union of their spans in log order, the merged
 * summary (every pinned fact verbatim and every key field, by `mergeSummaries`), trimmed to
 * `maxTokens`, the original tokens added up.
 *
 * @param older - The older block.
 * @param newer - The newer block.
 * @param indexOf - A message id's position in the log (orders the merged span).
 * @param maxTokens - Budget for the merged block.
 * @param countText - Counts rendered text.
 * @returns The merged block.
 */
export function mergeSummaryBlocks(
  older: SummarizationRecord,
  newer: SummarizationRecord,
  indexOf: (messageId: string) => number,
  maxTokens: number,
  countText: (text: string) => number,
): SummarizationRecord {
  const summary = trimSummaryToBudget(mergeSummaries(older.summary, newer.summary), maxTokens, countText);
  const summaryTokenCount = countText(renderSummary(summary));
  const messageIds = [...new Set([...older.span.messageIds, ...newer.span.messageIds])].sort(
    (left, right) => indexOf(left) - indexOf(right),
  );
  const originalTokenCount =
    older.originalTokenCount !== undefined && newer.originalTokenCount !== undefined
      ? older.originalTokenCount + newer.originalTokenCount
      : undefined;
  const costUsd = (older.summarizer?.costUsd ?? 0) + (newer.summarizer?.costUsd ?? 0);
  return {
    kind: 'summarize',
    span: {
      messageIds,
      firstTurn: Math.min(older.span.firstTurn, newer.span.firstTurn),
      lastTurn: Math.max(older.span.lastTurn, newer.span.lastTurn),
    },
    summary,
    summaryTokenCount,
    ...(newer.summarizer ? { summarizer: { ...newer.summarizer, costUsd } } : {}),
    round: Math.max(older.round, newer.round),
    ...(originalTokenCount !== undefined
      ? { originalTokenCount, compressionRatio: compressionRatioOf(originalTokenCount, summaryTokenCount) }
      : {}),
  };
}

/**
 * Keep the blocks within their caps by merging the oldest: while there are more than `maxBlocks` the
 * two oldest become one; when they take more than the budget, the oldest are merged and trimmed to what
 * half the budget leaves beside the newer blocks (so consolidations stay rare), provided that brings them
 * within the budget (when the untrimmable parts alone exceed it, nothing is rewritten for the budget).
 * Blocks within both caps come back unchanged (the same objects), so what the prompt cache holds is not
 * rewritten.
 *
 * @param blocks - Summary blocks in log order.
 * @param limits - The caps and the counter.
 * @param indexOf - A message id's position in the log.
 * @returns The blocks and how many were merged away.
 */
export function consolidateSummaryBlocks(
  blocks: readonly SummarizationRecord[],
  limits: SummaryBlockLimits,
  indexOf: (messageId: string) => number,
): ConsolidatedBlocks {
  const maxBlocks = Math.max(1, limits.maxBlocks);
  // The count cap always applies: merge the oldest until there are at most maxBlocks.
  let current = [...blocks];
  let merged = 0;
  const mergeForCount = limits.countCapMerges === 'newest' ? mergeNewest : mergeOldest;
  while (current.length > maxBlocks) {
    const within = mergeForCount(current, limits.budgetTokens, limits, indexOf);
    // A merge for the count never moves a pinned fact behind a pointer (ADR-0161 is for the budget):
    // when trimming to the budget would, the two blocks are merged untrimmed.
    current = keepsPinnedFacts(current, within)
      ? within
      : mergeForCount(current, Number.POSITIVE_INFINITY, limits, indexOf);
    merged += 1;
  }
  if (summaryBlockTokens(current) <= limits.budgetTokens) return { blocks: current, merged };
  // Over the budget: merge the oldest down to the low-water mark, but only if that brings the blocks
  // within the budget; what cannot be trimmed (pinned facts, key fields) alone may exceed it, and then a
  // rewrite would break the cache every round for nothing.
  let trimmed = current;
  let trimmedMerges = 0;
  while (trimmed.length > 1 && summaryBlockTokens(trimmed) > limits.budgetTokens) {
    const rest = trimmed.slice(2);
    const room = Math.max(1, Math.floor(limits.budgetTokens / 2) - summaryBlockTokens(rest));
    trimmed = mergeOldest(trimmed, room, limits, indexOf);
    trimmedMerges += 1;
  }
  if (summaryBlockTokens(trimmed) <= limits.budgetTokens && keepsPinnedFacts(current, trimmed))
    return { blocks: trimmed, merged: merged + trimmedMerges };
  return { blocks: current, merged };
}

/** Whether every pinned fact of `before` is still a pinned fact in `after` (none went behind a pointer). */
function keepsPinnedFacts(
  before: readonly SummarizationRecord[],
  after: readonly SummarizationRecord[],
): boolean {
  const kept = new Set(
    after.flatMap((record) => record.summary.facts.filter((fact) => fact.pinned).map((fact) => fact.text)),
  );
  return before.every((record) => record.summary.facts.every((fact) => !fact.pinned || kept.has(fact.text)));
}

function mergeOldest(
  blocks: readonly SummarizationRecord[],
  maxTokens: number,
  limits: SummaryBlockLimits,
  indexOf: (messageId: string) => number,
): SummarizationRecord[] {
  const [older, newer, ...rest] = blocks as [
    SummarizationRecord,
    SummarizationRecord,
    ...SummarizationRecord[],
  ];
  return [mergeSummaryBlocks(older, newer, indexOf, maxTokens, limits.countText), ...rest];
}

function mergeNewest(
  blocks: readonly SummarizationRecord[],
  maxTokens: number,
  limits: SummaryBlockLimits,
  indexOf: (messageId: string) => number,
): SummarizationRecord[] {
  const older = blocks.at(-2)!;
  const newer = blocks.at(-1)!;
  return [...blocks.slice(0, -2), mergeSummaryBlocks(older, newer, indexOf, maxTokens, limits.countText)];
}
