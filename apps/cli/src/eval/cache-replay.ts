import {
  availableForMessages,
  type ProviderName,
  type Thread,
  type ThreadMessage,
  tokenBudget,
} from '@compactor/core';
import { threadBudget } from '@compactor/engine';
import { createRenderCache, RenderBudgetExceededError, renderPromptSync } from '@compactor/render';
import type { ProviderTokenizer } from '@compactor/tokenizer';
import type { LocalReplayResult } from '../replay/replay-transcript.js';
import type { Baseline } from './baselines/baseline.js';
import { codexCompaction, windowWithRecall } from './conditioned-baselines.js';
import type { PrepareContext } from './conditioned-system.js';
import { renderBudgetFor } from './ours-conditioned.js';
import {
  CACHE_PRICES,
  type CacheFigures,
  cacheMeterFor,
  meanRequestTokens,
  noEmergencyDrops,
} from './prompt-cache.js';

/**
 * The points where an agent calls the model: before each assistant message of the root agent that
 * follows a non-assistant message (an assistant reply split over several log entries is one call).
 *
 * @returns For each call, how many messages of the thread its request holds.
 */
export function callPoints(thread: Thread): number[] {
  const points: number[] = [];
  const messages = thread.messages;
  for (let index = 1; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.subagentId !== undefined) continue;
    if (messages[index - 1]!.role === 'assistant') continue;
    points.push(index);
  }
  return points;
}

/** The thread as it was with its first `count` messages. */
export function threadPrefix(thread: Thread, count: number): Thread {
  const messages = thread.messages.slice(0, count);
  return { ...thread, messages, version: messages.at(-1)?.seq ?? thread.version };
}

/**
 * Our system over the replay: before every call, the thread so far rendered with the plan that was
 * current then (the replay's plan history) and the budget the workers' renderer uses, as an agent
 * runtime calling `prepare` would; one render cache for the run, as a runtime keeps one.
 */
export function oursCacheFigures(replay: LocalReplayResult): CacheFigures {
  const { thread, tokenizer, planHistory } = replay;
  const provider = replay.report.provider;
  const budget = renderBudgetFor(thread);
  const cache = createRenderCache();
  const meter = cacheMeterFor(tokenizer, provider);
  const dropped = noEmergencyDrops();
  let emergencyFits = 0;
  let next = 0;
  let plan: LocalReplayResult['plan'] = null;
  let commits = 0;
  let committedBefore = 0;
  for (const point of callPoints(thread)) {
    while (next < planHistory.length && planHistory[next]!.fromMessages <= point) {
      plan = planHistory[next]!.plan;
      next += 1;
      commits += 1;
    }
    const committed = commits > committedBefore;
    committedBefore = commits;
    try {
      const rendered = renderPromptSync({
        thread: threadPrefix(thread, point),
        plan,
        system: '',
        tools: [],
        budget,
        provider,
        tokenizer,
        cache,
      });
      const fit = rendered.report.emergencyFit;
      meter.observe(rendered.request, committed ? 'commit' : fit ? 'emergencyFit' : 'other');
      if (fit) {
        emergencyFits += 1;
        dropped.clearedResults += fit.clearedResults.length;
        for (const drop of fit.dropped) {
          if (drop.kind === 'summary') dropped.summaries += 1;
          else if (drop.kind === 'message') dropped.messages += 1;
        }
        dropped.trimmedSummaries += fit.trimmedSummaries.length;
        dropped.summaryItems += fit.trimmedSummaries.reduce((sum, trim) => sum + trim.itemsDropped, 0);
      }
    } catch (error) {
      if (!(error instanceof RenderBudgetExceededError)) throw error;
      // Nothing sent: the next request starts cold.
      meter.observe(null);
    }
  }
  return meter.figures({ commits, emergencyFits, emergencyDropped: dropped });
}

/** What a compacting system sends after one compaction, and how it builds a request on it. */
export interface CacheCompaction {
  /** The messages sent in place of the history (edits and summaries included). */
  sent: ThreadMessage[];
  /** Builds the request for `messages` (sent + everything after); default a plain render. */
  request?: (messages: readonly ThreadMessage[]) => { request: unknown; tokens: number };
}

/** A baseline as the cache replay runs it: compact a thread to a ceiling, keep the result. */
export interface CacheSystem {
  name: string;
  /** The package and function it runs. */
  source: string;
  compact(context: PrepareContext): Promise<CacheCompaction>;
}

/** A baseline of `./baselines` as a {@link CacheSystem}. */
export function cacheBaseline(baseline: Baseline): CacheSystem {
  return {
    name: baseline.name,
    source: baseline.source,
    async compact(context) {
      const output = await baseline.run({
        thread: context.thread,
        ceiling: context.ceiling,
        provider: context.provider,
        tokenizer: context.tokenizer,
        system: '',
      });
      const kept = new Set(output.keptMessageIds);
      return { sent: output.sent ?? context.thread.messages.filter((message) => kept.has(message.id)) };
    },
  };
}

/** The sliding window with BM25 recall into the newest user turn (the eval's "+ recall" baseline). */
export function cacheWindowWithRecall(name = 'sliding-window+recall'): CacheSystem {
  return {
    name,
    source: '@compactor/core slidingWindow + @compactor/recall (minisearch BM25)',
    async compact(context) {
      const recall = await windowWithRecall(context);
      return { sent: recall.window, request: (messages) => recall.ask(messages) };
    },
  };
}

/** Codex's rule: the user's recent messages and one summary of the rest. */
export function cacheCodexRule(name = 'user-messages+summary'): CacheSystem {
  return {
    name,
    source: 'Codex rule (recent user messages ≤ 20k tokens + summary), summary by @compactor/summarizer',
    async compact(context) {
      return { sent: (await codexCompaction(context)).sent };
    },
  };
}

const UNBOUNDED = tokenBudget({
  maxInputTokens: Number.MAX_SAFE_INTEGER,
  safetyBufferTokens: 0,
  rehydrationReserveTokens: 0,
});

function plainRender(
  thread: Thread,
  messages: readonly ThreadMessage[],
  provider: ProviderName,
  tokenizer: ProviderTokenizer,
): { request: unknown; tokens: number } {
  const rendered = renderPromptSync({
    thread: { ...thread, messages: messages.map((message, index) => ({ ...message, index })) },
    plan: null,
    system: '',
    tools: [],
    budget: UNBOUNDED,
    provider,
    tokenizer,
    promptCaching: false,
    addReadArtifactTool: false,
  });
  return { request: rendered.request, tokens: rendered.tokens.total };
}

/** The ceiling a baseline compacts to in the cache replay: our planner's target for the thread. */
export function compactionTarget(thread: Thread): number {
  return availableForMessages(threadBudget(thread));
}

/**
 * A baseline over the replay, run as a harness runs a compactor on overflow: before every call the
 * request is what the last compaction sent plus every message since; when that request is over the
 * ceiling, the baseline compacts the thread so far to our planner's target (the same low-water mark
 * our planner compacts to) and the request is rebuilt on its result. Baselines get the same
 * hysteresis as ours, so neither side breaks the cache on every call by construction.
 */
export async function baselineCacheFigures(
  system: CacheSystem,
  input: {
    thread: Thread;
    ceiling: number;
    provider: ProviderName;
    tokenizer: ProviderTokenizer;
    /** What a compaction goes down to; default our planner's target (at most the ceiling). */
    target?: number;
  },
): Promise<CacheFigures> {
  const { thread, ceiling, provider, tokenizer } = input;
  const target = Math.min(ceiling, input.target ?? compactionTarget(thread));
  const meter = cacheMeterFor(tokenizer, provider);
  let compaction: CacheCompaction | null = null;
  let since = 0;
  let commits = 0;
  const build = (point: number) => {
    const messages = compaction
      ? [...compaction.sent, ...thread.messages.slice(since, point)]
      : thread.messages.slice(0, point);
    return compaction?.request
      ? compaction.request(messages)
      : plainRender(thread, messages, provider, tokenizer);
  };
  for (const point of callPoints(thread)) {
    let built = build(point);
    if (built.tokens > ceiling) {
      compaction = await system.compact({
        thread: threadPrefix(thread, point),
        ceiling: target,
        provider,
        tokenizer,
        questionReserve: 0,
      });
      since = point;
      commits += 1;
      built = build(point);
      meter.observe(built.request, 'commit');
      continue;
    }
    meter.observe(built.request, 'other');
  }
  return meter.figures({ commits, emergencyFits: 0, emergencyDropped: noEmergencyDrops() });
}

/** A baseline's cache figures at a ceiling chosen so its mean request matches a given size. */
export interface EqualTokenFigures {
  /** The ceiling the baseline was given (its compaction target scaled with it). */
  ceiling: number;
  /** The mean request size it was asked to match. */
  matchedTokens: number;
  figures: CacheFigures;
}

/** Bisection steps for {@link equalTokenCacheFigures}: the ceiling to within 1/512 of its range. */
const EQUAL_TOKEN_STEPS = 9;

/**
 * A baseline given as many tokens as we use (ADR-0275): the same overflow replay as
 * {@link baselineCacheFigures}, at the ceiling whose mean request is closest to `meanTokens`, its
 * compaction target kept at the real run's ratio of target to ceiling (the same hysteresis). The
 * ceiling is in the renderer's tokens and the meter counts serialized requests (JSON keys and quotes
 * included, about a quarter more on tool-heavy threads), so it is bisected over a wide range, a
 * quarter of the mean to 2.5× it. A system that sends more than the baseline is then compared with
 * the baseline sending as much, not only with the baseline at the real window.
 *
 * @param system - The baseline.
 * @param input - The replay's thread, real ceiling, provider and tokenizer.
 * @param meanTokens - The mean request to match (ours).
 * @returns The ceiling used, the mean it matched and the figures there.
 */
export async function equalTokenCacheFigures(
  system: CacheSystem,
  input: { thread: Thread; ceiling: number; provider: ProviderName; tokenizer: ProviderTokenizer },
  meanTokens: number,
): Promise<EqualTokenFigures> {
  const ratio = Math.min(input.ceiling, compactionTarget(input.thread)) / input.ceiling;
  const at = async (ceiling: number) => ({
    ceiling,
    matchedTokens: meanTokens,
    figures: await baselineCacheFigures(system, {
      ...input,
      ceiling,
      target: Math.floor(ceiling * ratio),
    }),
  });
  let low = Math.max(1, Math.floor(meanTokens / 4));
  let high = Math.ceil(meanTokens * 2.5);
  let best = await at(low);
  const distance = (run: EqualTokenFigures) => Math.abs(meanRequestTokens(run.figures) - meanTokens);
  for (let step = 0; step < EQUAL_TOKEN_STEPS && high - low > 1; step += 1) {
    const middle = Math.floor((low + high) / 2);
    const run = await at(middle);
    if (distance(run) < distance(best)) best = run;
    if (meanRequestTokens(run.figures) < meanTokens) low = middle;
    else high = middle;
  }
  return best;
}

/** The system's request for the whole thread compacted once to the ceiling (its budget-run row). */
export async function compactedRequest(
  system: CacheSystem,
  input: { thread: Thread; ceiling: number; provider: ProviderName; tokenizer: ProviderTokenizer },
): Promise<{ request: unknown; tokens: number }> {
  const compaction = await system.compact({ ...input, questionReserve: 0 });
  return compaction.request
    ? compaction.request(compaction.sent)
    : plainRender(input.thread, compaction.sent, input.provider, input.tokenizer);
}

/** The best cached share any system could reach on a replay (ADR-0315), and the cost floor beside it. */
export interface CacheCeiling {
  /** Calls of the replay (the same call points as every system's). */
  calls: number;
  /** Mean over calls of `1 − new_i / ceiling_i`: no system can exceed it (0 on the first call, as every share counts it). */
  cachedShare: number;
  /**
   * Mean over calls of `1 − new_i / min(thread_i, ceiling_i)`: the bound for a system that sends no
   * more than the thread itself (no tools, recall blocks or other additions that are cached on every call).
   */
  threadOnlyShare: number;
  /** Tokens new since the previous call, summed: what every system must write at least. */
  newTokens: number;
  /** Those new tokens at the Anthropic cache-write price: no system's cost can be lower. */
  costFloorUsd: number;
}

/**
 * The ceiling on the cached share (ADR-0315). At call `i` the messages added since call `i − 1` (the
 * previous reply, the tool results and the person's words after it) are in no earlier request, so any
 * system that sends them writes at least their `new_i` tokens, and its request holds at most the
 * ceiling: no system's share at `i` exceeds `1 − new_i / ceiling_i`. A system that adds nothing to the
 * thread (no tools, no recall) also sends at most the thread so far, `thread_i`. Counted as the meter
 * counts (serialized requests): the thread so far is rendered whole, without compaction, and the
 * ceiling (render tokens) is scaled by that render's ratio of meter tokens to render tokens.
 *
 * @param input - The replay's thread, ceiling, provider and tokenizer.
 * @returns The ceiling shares and the cost floor.
 */
export function cacheCeiling(input: {
  thread: Thread;
  ceiling: number;
  provider: ProviderName;
  tokenizer: ProviderTokenizer;
}): CacheCeiling {
  const { thread, ceiling, provider, tokenizer } = input;
  const meter = cacheMeterFor(tokenizer, provider);
  let calls = 0;
  let shareSum = 0;
  let threadOnlySum = 0;
  let newTokens = 0;
  const bound = (fresh: number, cap: number) => (cap > 0 ? Math.max(0, 1 - fresh / cap) : 0);
  for (const point of callPoints(thread)) {
    const whole = plainRender(thread, thread.messages.slice(0, point), provider, tokenizer);
    const { requestTokens, cachedTokens } = meter.observe(whole.request);
    const fresh = requestTokens - cachedTokens;
    const cap = (ceiling * requestTokens) / Math.max(1, whole.tokens);
    calls += 1;
    newTokens += fresh;
    shareSum += bound(fresh, cap);
    threadOnlySum += bound(fresh, Math.min(requestTokens, cap));
  }
  return {
    calls,
    cachedShare: calls === 0 ? 0 : shareSum / calls,
    threadOnlyShare: calls === 0 ? 0 : threadOnlySum / calls,
    newTokens,
    costFloorUsd: (newTokens * CACHE_PRICES.anthropic.cacheWritePerMTok) / 1_000_000,
  };
}
