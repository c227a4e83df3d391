import { rememberRecordParts } from '../plan/record-parts.js';
import type { SummarizationRecord } from '../plan/records.js';
import { summaryHeader, summaryText } from '../plan/stand-in-texts.js';
import { mergeSummaries } from '../summary/merge.js';
import { renderSummary } from '../summary/render.js';
import { emptySummary, type StructuredSummary } from '../summary/structured-summary.js';
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
  /** A planning run's positions of each block's span, read instead of each id's (ADR-0350). */
  spanPositions?: SpanPositions;
  /**
   * Whether a budget merge joins as many of the oldest blocks as leave it an even share of room (ADR-0403;
   * a coding session's blocks), or always the two oldest (a dialogue's: joined, its scored turns were
   * thinned further and LoCoMo lost evidence).
   * @defaultValue false
   */
  joinOldest?: boolean;
}

/**
 * The log positions of a block's span, kept by whoever reads them again (a planning run's index): merging
 * two blocks reads theirs instead of looking each id up, and tells it the merged block's.
 */
export interface SpanPositions {
  /** Positions in the span's order; -1 for an id not in the log. */
  of(block: SummarizationRecord): ArrayLike<number>;
  /** The positions of a block just made, in its span's order. */
  remember(block: SummarizationRecord, positions: Int32Array): void;
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

/**
 * What summary blocks cost in the prompt (ADR-0260): each block's text as the renderer writes it
 * (`summaryText`: its `[Context Summary - Turns a-b]` line, then the summary), counted now rather
 * than read from `summaryTokenCount`, so a plan written before the header was counted is measured
 * the same way. The one measure the summary budget is held to: by the planner when it trims and
 * consolidates blocks, and by the eval's "summary over budget".
 *
 * @param blocks - Summary blocks.
 * @param countText - Counts rendered text.
 * @returns Their tokens together.
 */
export function summaryBlockTokens(
  blocks: readonly SummarizationRecord[],
  countText: (text: string) => number,
): number {
  return blocks.reduce((total, block) => total + blockTokens(block, countText), 0);
}

/**
 * A block's rendered tokens by counter, counted once per record object (ADR-0381): a record is never
 * edited, so its text and count never change, and a planning run reads the same blocks' counts again at
 * every summarize step (the new block's budget, each consolidation check, the newer blocks beside a
 * merge). The planner's records come in with the count their maker took of the same text.
 */
const blockTokenCounts = new WeakMap<
  SummarizationRecord,
  { countText: (text: string) => number; tokens: number }
>();

function blockTokens(block: SummarizationRecord, countText: (text: string) => number): number {
  const known = blockTokenCounts.get(block);
  if (known && known.countText === countText) return known.tokens;
  const tokens = countText(summaryText(block));
  blockTokenCounts.set(block, { countText, tokens });
  return tokens;
}

/**
 * Tells the memo of `summaryBlockTokens` what a block just made costs: `tokens` must be
 * `countText(summaryText(block))`, as its maker counted it for `summaryTokenCount`.
 *
 * @param block - The new block.
 * @param countText - The counter that counted it.
 * @param tokens - Its rendered tokens.
 */
export function rememberBlockTokens(
  block: SummarizationRecord,
  countText: (text: string) => number,
  tokens: number,
): void {
  blockTokenCounts.set(block, { countText, tokens });
}

/**
 * A block's summary trimmed (`trimSummaryToBudget`, ADR-0161) so that the block's text, header line
 * included, fits `maxTokens` (ADR-0260).
 *
 * @param summary - The summary.
 * @param span - The block's turns (its header).
 * @param maxTokens - Budget for the block's text.
 * @param countText - Counts rendered text.
 * @returns The summary, trimmed when it did not fit.
 */
export function trimBlockToBudget(
  summary: StructuredSummary,
  span: Pick<SummarizationRecord['span'], 'firstTurn' | 'lastTurn'>,
  maxTokens: number,
  countText: (text: string) => number,
): StructuredSummary {
  const header = summaryHeader(span);
  return trimSummaryToBudget(summary, maxTokens, (text) => countText(`${header}${text}`));
}

/**
 * `trimBlockToBudget`, and the trimmed block's tokens (`countText` of its `summaryText`), each distinct
 * text counted once (ADR-0381): the trimmed text is one the trim counted already (the whole summary when
 * it fits, else the bisection's last fitting candidate), and nearby shares of a bisection often build
 * the same text.
 *
 * @param summary - The summary.
 * @param span - The block's turns (its header).
 * @param maxTokens - Budget for the block's text.
 * @param countText - Counts rendered text.
 * @returns The summary, trimmed when it did not fit, and its block's tokens.
 */
export function trimBlockCounted(
  summary: StructuredSummary,
  span: Pick<SummarizationRecord['span'], 'firstTurn' | 'lastTurn'>,
  maxTokens: number,
  countText: (text: string) => number,
): { summary: StructuredSummary; tokens: number } {
  const counted = new Map<string, number>();
  const countOnce = (text: string) => {
    let tokens = counted.get(text);
    if (tokens === undefined) {
      tokens = countText(text);
      counted.set(text, tokens);
    }
    return tokens;
  };
  const trimmed = trimBlockToBudget(summary, span, maxTokens, countOnce);
  // The block's text as `summaryText` writes it: its header, then the summary.
  return { summary: trimmed, tokens: countOnce(`${summaryHeader(span)}${renderSummary(trimmed)}`) };
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
 * @param spanPositions - The blocks' positions, when the caller keeps them (told the merged block's).
 * @returns The merged block.
 */
export function mergeSummaryBlocks(
  older: SummarizationRecord,
  newer: SummarizationRecord,
  indexOf: (messageId: string) => number,
  maxTokens: number,
  countText: (text: string) => number,
  spanPositions?: SpanPositions,
): SummarizationRecord {
  const union = unionInLogOrder(
    older.span.messageIds,
    newer.span.messageIds,
    indexOf,
    spanPositions && [spanPositions.of(older), spanPositions.of(newer)],
  );
  const messageIds = union.ids;
  const turns = {
    firstTurn: Math.min(older.span.firstTurn, newer.span.firstTurn),
    lastTurn: Math.max(older.span.lastTurn, newer.span.lastTurn),
  };
  const { summary, tokens: summaryTokenCount } = trimBlockCounted(
    mergeSummaries(older.summary, newer.summary),
    turns,
    maxTokens,
    countText,
  );
  const originalTokenCount =
    older.originalTokenCount !== undefined && newer.originalTokenCount !== undefined
      ? older.originalTokenCount + newer.originalTokenCount
      : undefined;
  const costUsd = (older.summarizer?.costUsd ?? 0) + (newer.summarizer?.costUsd ?? 0);
  const merged: SummarizationRecord = {
    kind: 'summarize',
    span: { messageIds, ...turns },
    summary,
    summaryTokenCount,
    ...(newer.summarizer ? { summarizer: { ...newer.summarizer, costUsd } } : {}),
    round: Math.max(older.round, newer.round),
    ...(originalTokenCount !== undefined
      ? { originalTokenCount, compressionRatio: compressionRatioOf(originalTokenCount, summaryTokenCount) }
      : {}),
  };
  if (spanPositions && union.positions) spanPositions.remember(merged, union.positions);
  rememberBlockTokens(merged, countText, summaryTokenCount);
  // Its span is the two spans' union: an owner map holding them points their ids at it (ADR-0455).
  rememberRecordParts(merged, [older, newer]);
  return merged;
}

/**
 * The ids of two spans once each, in log order: `[...new Set([...a, ...b])]` sorted by `indexOf`. Spans
 * are written in log order, so the two lists are merged in one pass, reading each id's position once
 * (sorting read two positions per comparison, n log n of them, over every id a long history's block
 * holds). Lists not in strictly increasing log order, or naming an id not in the log, are sorted as before.
 */
function unionInLogOrder(
  first: readonly string[],
  second: readonly string[],
  indexOf: (messageId: string) => number,
  known?: readonly [ArrayLike<number>, ArrayLike<number>],
): { ids: string[]; positions?: Int32Array } {
  const increasing = (ids: readonly string[], given: ArrayLike<number> | undefined) => {
    const found = new Float64Array(ids.length);
    for (let at = 0; at < ids.length; at += 1) {
      const position = given ? given[at]! : indexOf(ids[at]!);
      if (!Number.isFinite(position) || position < 0 || (at > 0 && position <= found[at - 1]!))
        return undefined;
      found[at] = position;
    }
    return found;
  };
  const left = increasing(first, known?.[0]);
  const right = left && increasing(second, known?.[1]);
  if (!left || !right) {
    return { ids: [...new Set([...first, ...second])].sort((one, other) => indexOf(one) - indexOf(other)) };
  }
  // Distinct positions name distinct ids (one message per position), so equal positions are one id.
  const ids: string[] = [];
  const positions: number[] = [];
  let i = 0;
  let j = 0;
  while (i < first.length || j < second.length) {
    if (j >= second.length || (i < first.length && left[i]! < right[j]!)) {
      positions.push(left[i]!);
      ids.push(first[i++]!);
    } else if (i >= first.length || right[j]! < left[i]!) {
      positions.push(right[j]!);
      ids.push(second[j++]!);
    } else {
      positions.push(left[i]!);
      ids.push(first[i++]!);
      j += 1;
    }
  }
  return { ids, positions: Int32Array.from(positions) };
}

/**
 * Keep the blocks within their caps by merging: while there are more than `maxBlocks` two become one
 * (the oldest, or the newest per `countCapMerges`); when they take more than the budget (counted as
 * rendered, `summaryBlockTokens`), the oldest are merged and trimmed to what half the budget leaves
 * beside the newer blocks (so consolidations stay rare), or to what the whole budget leaves when the
 * low-water mark would move a pinned fact behind a pointer. The result is within the budget unless one
 * block is left whose pinned facts alone exceed it; even then the oldest pinned facts are behind one
 * pointer (ADR-0161), never lost (ADR-0261). Blocks within both caps come back unchanged (the same
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
  const maxBlocks = Math.max(1, limits.maxBlocks);
  // The count cap always applies: merge until there are at most maxBlocks.
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
  const over = (list: readonly SummarizationRecord[]) =>
    summaryBlockTokens(list, limits.countText) > limits.budgetTokens;
  if (!over(current)) return { blocks: current, merged };
  // Over the budget: merge the oldest until the blocks fit (ADR-0261). Leaving them over the budget
  // because their pinned facts alone exceed it (as before) kept every summary over it in every later
  // round; the oldest pinned facts behind one pointer are still recallable.
  while (current.length > 1 && over(current)) {
    const before = current.length;
    current = mergeOldestWithin(current, limits, indexOf);
    merged += before - current.length;
  }
  const [only] = current;
  if (current.length === 1 && only && over(current)) current = [retrimmed(only, limits)];
  return { blocks: current, merged };
}

/**
 * The oldest blocks merged for the budget (two, or more while that leaves them under an even share of the
 * low-water room, ADR-0403): trimmed to the low-water room (half the budget less the newer blocks) when
 * that keeps every pinned fact in the text and something of blocks that had content (ADR-0445), else to the
 * budget less the newer blocks; untrimmed while the newer blocks alone fill the budget or that room holds
 * nothing of them (a later merge trims them all at once, which thins evenly instead of emptying the oldest
 * first).
 */
function mergeOldestWithin(
  blocks: readonly SummarizationRecord[],
  limits: SummaryBlockLimits,
  indexOf: (messageId: string) => number,
): SummarizationRecord[] {
  const joined = limits.joinOldest ? oldestToJoin(blocks, limits) : 2;
  const newer = summaryBlockTokens(blocks.slice(joined), limits.countText);
  const room = limits.budgetTokens - newer;
  if (room <= 0) return mergeOldest(blocks, Number.POSITIVE_INFINITY, limits, indexOf);
  const inputs = blocks.slice(0, joined);
  const lowWaterRoom = Math.max(1, Math.floor(limits.budgetTokens / 2) - newer);
  const lowWater = mergeOldestN(blocks, joined, lowWaterRoom, limits, indexOf);
  if (!keepsPinnedFacts(inputs, lowWater.slice(0, 1)))
    return mergeOldestN(blocks, joined, room, limits, indexOf);
  if (!emptied(inputs, lowWater[0]!)) return lowWater;
  // The low-water room holds nothing of blocks that had content (ADR-0445: a dialogue's "Turns 0-11" in 24
  // tokens): the least room up to the budget less the newer blocks that keeps their most important items,
  // so the rest of the budget stays the newer blocks' as before; when even that room holds nothing, merged
  // untrimmed, and the next merge joins the next block and trims them together.
  const least = leastRoomKeepingContent(
    inputs,
    mergeOldestN(blocks, joined, Number.POSITIVE_INFINITY, limits, indexOf)[0]!,
    lowWaterRoom,
    room,
    limits.countText,
  );
  return mergeOldestN(blocks, joined, least ?? Number.POSITIVE_INFINITY, limits, indexOf);
}

/**
 * The least room in (`above`, `atMost`] in which `merged` trimmed keeps something of `inputs` (ADR-0445),
 * by bisection (a trim keeps more with more room); undefined when `atMost` keeps nothing.
 */
function leastRoomKeepingContent(
  inputs: readonly SummarizationRecord[],
  merged: SummarizationRecord,
  above: number,
  atMost: number,
  countText: (text: string) => number,
): number | undefined {
  const keeps = (maxTokens: number) =>
    !emptied(inputs, {
      ...merged,
      summary: trimBlockToBudget(merged.summary, merged.span, maxTokens, countText),
    });
  if (!keeps(atMost)) return undefined;
  let low = above + 1;
  let high = atMost;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (keeps(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Whether a merged block renders no summary at all although some block merged into it did (ADR-0445). */
function emptied(inputs: readonly SummarizationRecord[], merged: SummarizationRecord): boolean {
  return isEmptyRender(merged.summary) && inputs.some((input) => !isEmptyRender(input.summary));
}

const EMPTY_RENDER = renderSummary(emptySummary());

function isEmptyRender(summary: StructuredSummary): boolean {
  return renderSummary(summary) === EMPTY_RENDER;
}

/**
 * How many of the oldest blocks a budget merge joins (ADR-0403): two, or more while the low-water room
 * beside the rest (half the budget less the newer blocks) is under an even share of the budget. Joining
 * the oldest rewrites every block after them anyway, so a third costs the cache nothing more; trimmed
 * to a room of a few tokens, two blocks came out empty ("Turns 2-43" in 20 tokens for 130k).
 */
function oldestToJoin(blocks: readonly SummarizationRecord[], limits: SummaryBlockLimits): number {
  const evenShare = Math.floor(limits.budgetTokens / Math.max(1, limits.maxBlocks));
  let joined = 2;
  while (
    joined < blocks.length &&
    Math.floor(limits.budgetTokens / 2) - summaryBlockTokens(blocks.slice(joined), limits.countText) <
      evenShare
  )
    joined += 1;
  return joined;
}

/** The `count` oldest blocks merged into one (untrimmed until the last merge), then the rest. */
function mergeOldestN(
  blocks: readonly SummarizationRecord[],
  count: number,
  maxTokens: number,
  limits: SummaryBlockLimits,
  indexOf: (messageId: string) => number,
): SummarizationRecord[] {
  let merged = blocks[0]!;
  for (let at = 1; at < count; at += 1)
    merged = mergeSummaryBlocks(
      merged,
      blocks[at]!,
      indexOf,
      at === count - 1 ? maxTokens : Number.POSITIVE_INFINITY,
      limits.countText,
      limits.spanPositions,
    );
  return [merged, ...blocks.slice(count)];
}

/** A lone block over the budget (written under a larger one) trimmed to it, its counts updated. */
function retrimmed(block: SummarizationRecord, limits: SummaryBlockLimits): SummarizationRecord {
  const { summary, tokens: summaryTokenCount } = trimBlockCounted(
    block.summary,
    block.span,
    limits.budgetTokens,
    limits.countText,
  );
  const trimmed = {
    ...block,
    summary,
    summaryTokenCount,
    ...(block.originalTokenCount !== undefined
      ? { compressionRatio: compressionRatioOf(block.originalTokenCount, summaryTokenCount) }
      : {}),
  };
  rememberBlockTokens(trimmed, limits.countText, summaryTokenCount);
  rememberRecordParts(trimmed, [block]);
  return trimmed;
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
  return [
    mergeSummaryBlocks(older, newer, indexOf, maxTokens, limits.countText, limits.spanPositions),
    ...rest,
  ];
}

function mergeNewest(
  blocks: readonly SummarizationRecord[],
  maxTokens: number,
  limits: SummaryBlockLimits,
  indexOf: (messageId: string) => number,
): SummarizationRecord[] {
  const older = blocks.at(-2)!;
  const newer = blocks.at(-1)!;
  return [
    ...blocks.slice(0, -2),
    mergeSummaryBlocks(older, newer, indexOf, maxTokens, limits.countText, limits.spanPositions),
  ];
}
