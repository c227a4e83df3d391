import type { SummarizationRecord } from '../plan/records.js';
import { mergeSummaries } from '../summary/merge.js';
import { renderSummary } from '../summary/render.js';
import { trimSummaryToBudget } from '../summary/trim.js';

/*
 * Append-only summary blocks (ADR-0150). Each summarization round adds one block covering only the
 * span it summarized; earlier blocks are left as they are, so the prompt they render stays byte for
 * byte what the provider cached. Blocks are consolidated (the oldest merged into one) only when there
 * are more than `maxSummaryBlocks` or they exceed the summary budget, and then down to a low-water
 * mark (half the budget) so the next consolidation is many rounds away.
 */

/** What consolidation needs: the caps and how to count a rendered summary. */
export interface SummaryBlockLimits {
  maxBlocks: number;
  /** Tokens all blocks together may take (the summary budget). */
  budgetTokens: number;
  countText: (text: string) => number;
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
 * Keep the blocks within their caps by merging the oldest: while there are more than `maxBlocks`, or
 * they take more than the budget, the two oldest become one. A consolidation forced by the budget
 * trims the merged block to what half the budget leaves beside the newer blocks, so consolidations stay
 * rare; one forced by the count alone only merges. Blocks within both caps come back unchanged (the same
 * objects), so what the prompt cache holds is not rewritten.
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
  let current = [...blocks];
  let merged = 0;
  const overBudget = () => summaryBlockTokens(current) > limits.budgetTokens;
  while (current.length > 1 && (current.length > Math.max(1, limits.maxBlocks) || overBudget())) {
    const [older, newer, ...rest] = current as [
      SummarizationRecord,
      SummarizationRecord,
      ...SummarizationRecord[],
    ];
    const room = overBudget()
      ? Math.max(1, Math.floor(limits.budgetTokens / 2) - summaryBlockTokens(rest))
      : limits.budgetTokens;
    current = [mergeSummaryBlocks(older, newer, indexOf, room, limits.countText), ...rest];
    merged += 1;
  }
  return { blocks: current, merged };
}
