import type { CompactionPlan } from '../plan/plan.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import type { ThreadMessage } from '../thread/thread.js';

/*
 * The planner's prompt-cache cost model (ADR-0151). A provider with a prompt cache bills the cached
 * prefix of a request at a fraction of the input price and the rest (what a compaction rewrote, and
 * what each call appends) at a premium. A compaction therefore costs the cache write of everything
 * after the first byte it changes, and pays back the tokens it frees on every call until the next
 * compaction; compacting deeper costs about the same write and buys more calls before the next one.
 * Prices are relative to the base input price, so the model needs no currency.
 */

/** Cache prices relative to the base input price of one token. */
export interface CachePrices {
  /** A token read from the cache. */
  read: number;
  /** A token written to the cache (the uncached part of a request). */
  write: number;
}

/** Anthropic's list multipliers: cache reads at 0.1×, five-minute cache writes at 1.25× the input price. */
export const ANTHROPIC_CACHE_PRICES: CachePrices = { read: 0.1, write: 1.25 };

/** What a compaction cycle looks like: where it fires, where it goes down to, and how fast the prompt grows. */
export interface CompactionCycle {
  /** Message tokens at which the next compaction fires (the planner's target). */
  highWater: number;
  /** Message tokens the compaction leaves. */
  low: number;
  /** Tokens each call adds to the prompt, on average. */
  growthPerCall: number;
  /** Tokens at the start of the prompt the compaction leaves byte-identical (still cached). */
  stablePrefix: number;
}

/**
 * Calls expected before the next compaction: the room between `low` and the high-water mark at the
 * thread's growth per call (at least one).
 *
 * @param cycle - The cycle.
 * @returns The expected number of calls.
 */
export function callsBeforeNextCompaction(
  cycle: Pick<CompactionCycle, 'highWater' | 'low' | 'growthPerCall'>,
): number {
  return Math.max(1, (cycle.highWater - cycle.low) / Math.max(1, cycle.growthPerCall));
}

/**
 * The average input cost of one call over a cycle, in base-input-token units: the compaction's cache
 * write of what follows the stable prefix, spread over the cycle's calls, plus each call's cached read
 * of the prompt (on average halfway between `low` and the high-water mark) and its write of what it adds.
 *
 * @param cycle - The cycle.
 * @param prices - Cache prices.
 * @returns Cost per call.
 */
export function costPerCall(cycle: CompactionCycle, prices: CachePrices = ANTHROPIC_CACHE_PRICES): number {
  const calls = callsBeforeNextCompaction(cycle);
  const rewrite = prices.write * Math.max(0, cycle.low - cycle.stablePrefix);
  const meanPrompt = (cycle.low + Math.max(cycle.low, cycle.highWater)) / 2;
  return rewrite / calls + prices.read * meanPrompt + prices.write * cycle.growthPerCall;
}

/** One depth the planner priced. */
export interface PricedDepth {
  stopAt: number;
  costPerCall: number;
}

/** The depth chosen and every candidate's price (for lifecycle events and reports). */
export interface DepthDecision {
  stopAt: number;
  candidates: PricedDepth[];
}

/**
 * Choose how deep a compaction goes: each candidate stop is priced by `costPerCall` and the cheapest
 * wins (the shallower on a tie, so the model never compacts deeper for nothing).
 *
 * @param stops - Candidate message-token stops, shallowest first.
 * @param cycle - The cycle without its `low`.
 * @param prices - Cache prices.
 * @returns The chosen stop and the priced candidates.
 */
export function chooseCompactionDepth(
  stops: readonly number[],
  cycle: Omit<CompactionCycle, 'low'>,
  prices: CachePrices = ANTHROPIC_CACHE_PRICES,
): DepthDecision {
  const candidates = stops.map((stopAt) => ({
    stopAt,
    costPerCall: costPerCall({ ...cycle, low: stopAt }, prices),
  }));
  let best = candidates[0]!;
  for (const candidate of candidates.slice(1)) if (candidate.costPerCall < best.costPerCall) best = candidate;
  return { stopAt: best.stopAt, candidates };
}

/**
 * Does a step pay for the cache it breaks? It costs the cache write of what it rewrites beyond what
 * the compaction rewrites anyway (`extraRewrittenTokens`, the premium over a cached read), and saves
 * the cached read of the tokens it frees on every call before the next compaction, and, for a step
 * committed alone between compactions (ADR-0440), the share of the next compaction's rewrite that the
 * freed tokens postpone (`postponedRewriteTokens`: the next compaction comes that much later).
 *
 * @param step - Tokens freed, extra tokens rewritten, expected calls, rewrite postponed.
 * @param prices - Cache prices.
 * @returns True when the saving is at least the cost.
 */
export function stepPays(
  step: { tokensFreed: number; extraRewrittenTokens: number; calls: number; postponedRewriteTokens?: number },
  prices: CachePrices = ANTHROPIC_CACHE_PRICES,
): boolean {
  const cost = (prices.write - prices.read) * step.extraRewrittenTokens;
  const saving =
    prices.read * step.tokensFreed * step.calls + prices.write * (step.postponedRewriteTokens ?? 0);
  return saving >= cost;
}

/**
 * The share of the next compaction's rewrite that freeing tokens between compactions postpones: the
 * messages take `tokensFreed` longer to reach the high-water mark, out of the `highWater − low` a
 * cycle grows, and the compaction rewrites about what it leaves (`low − stablePrefix`).
 *
 * @param cycle - The cycle (its `low` where the next compaction goes down to).
 * @param tokensFreed - Tokens freed now.
 * @returns Tokens of rewrite saved.
 */
export function postponedRewrite(
  cycle: Pick<CompactionCycle, 'highWater' | 'low' | 'stablePrefix'>,
  tokensFreed: number,
): number {
  const growth = Math.max(1, cycle.highWater - cycle.low);
  return (Math.max(0, cycle.low - cycle.stablePrefix) * Math.min(tokensFreed, growth)) / growth;
}

/**
 * Tokens at the start of the prompt a compaction leaves byte-identical: the plan's summary blocks, which
 * stay in place while a new round appends its own (ADR-0150).
 *
 * @param plan - The current plan, if any.
 * @returns Their tokens.
 */
export function stableSummaryTokens(plan: Pick<CompactionPlan, 'summarizations'> | null | undefined): number {
  return (plan?.summarizations ?? []).reduce((total, record) => total + record.summaryTokenCount, 0);
}

/**
 * Does committing now, before the high-water mark, pay for the cache (ADR-0430)? A request that breaks
 * its prefix anyway (a recall block that went) writes everything after the break; a commit now writes
 * what a commit writes instead (the kept messages after the stable summary blocks), and the next commit
 * then comes as many calls sooner as the messages had left to grow: `(highWater − now) ÷ (highWater −
 * low)` of a commit spent early. Commit when the break saved is at least that share.
 *
 * @param commit - Message tokens now, the high-water and low-water marks, tokens the commit writes and
 *   tokens the break would write.
 * @returns True when committing now is the cheaper of the two.
 */
export function earlyCommitPays(commit: {
  messageTokens: number;
  highWater: number;
  low: number;
  commitTokens: number;
  breakTokens: number;
}): boolean {
  const cycle = Math.max(1, commit.highWater - commit.low);
  const spentEarly = Math.min(1, Math.max(0, commit.highWater - commit.messageTokens) / cycle);
  return commit.breakTokens >= commit.commitTokens * spentEarly;
}

/**
 * Tokens a call adds on average, from the newest messages: their tokens over the assistant messages
 * among them (each assistant message is one model call).
 *
 * @param messages - The thread's messages.
 * @param countMessage - Tokens of a message as rendered.
 * @param window - How many of the newest messages to look at.
 * @returns Tokens per call (at least 1).
 */
export function growthPerCall(
  messages: readonly ThreadMessage[],
  countMessage: (message: ThreadMessage) => number,
  window = 48,
): number {
  const recent = messages.slice(-window);
  const calls = recent.filter((message) => message.role === 'assistant').length;
  const tokens = recent.reduce((total, message) => total + countMessage(message), 0);
  return Math.max(1, tokens / Math.max(1, calls));
}

/**
 * The share of the window at which the default target trigger fires (ADR-0151): the high-water mark
 * with the cost model on, else the soft threshold (never below it). Between two commits the messages
 * grow from where a compaction left them up to this mark; the renderer sizes what must last a whole
 * plan version (append-only recall blocks, ADR-0335) against it.
 *
 * @param policy - The thread's policy.
 * @returns A fraction of the window, at least the soft threshold.
 */
export function triggerThresholdPercent(
  policy: Pick<CompactionPolicy, 'cacheCostModel' | 'highWaterPercent' | 'softThresholdPercent'>,
): number {
  return policy.cacheCostModel
    ? Math.max(policy.softThresholdPercent, policy.highWaterPercent)
    : policy.softThresholdPercent;
}
