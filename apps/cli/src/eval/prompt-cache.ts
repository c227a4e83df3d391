/**
 * A prompt-cache simulator for the eval (ADR-0140): each request a system sends is serialized in
 * provider order (tools, then system, then messages), counted in tokens by our tokenizer, and
 * compared with the request before it. The longest common prefix (in tokens) is what a provider's
 * prefix cache could serve; the rest is written to the cache (Anthropic) or billed as fresh input
 * (OpenAI). Cost is estimated at list prices stated in {@link CACHE_PRICES}.
 */

/** Prices in US dollars per million tokens (output is not counted: it is the same whatever compacts). */
export interface CachePrices {
  /** Label shown in reports. */
  model: string;
  inputPerMTok: number;
  /** What writing an uncached suffix into the cache costs (Anthropic); equal to input when writes are free. */
  cacheWritePerMTok: number;
  cacheReadPerMTok: number;
  /** The shortest prefix a provider caches at all (tokens); shorter prefixes are billed as uncached. */
  minimumCachedTokens: number;
  /** Cached prefixes are counted in steps of this many tokens (OpenAI: 128); 1 = every token. */
  cachedIncrement: number;
}

/**
 * List prices used by the eval. Anthropic: Claude Sonnet 4.x (input $3, 5-minute cache write $3.75,
 * cache read $0.30 per MTok); the rule counts the whole common prefix as a read and the rest
 * as a write. OpenAI: GPT-4.1 (input $2.00, cached input $0.50 per MTok, a 75% discount, no write
 * premium; prefixes of 1,024 tokens or more, cached in 128-token steps).
 */
export const CACHE_PRICES = {
  anthropic: {
    model: 'Claude Sonnet 4.x',
    inputPerMTok: 3,
    cacheWritePerMTok: 3.75,
    cacheReadPerMTok: 0.3,
    minimumCachedTokens: 0,
    cachedIncrement: 1,
  },
  openai: {
    model: 'GPT-4.1',
    inputPerMTok: 2,
    cacheWritePerMTok: 2,
    cacheReadPerMTok: 0.5,
    minimumCachedTokens: 1024,
    cachedIncrement: 128,
  },
} as const satisfies Record<string, CachePrices>;

/** The cache figures of one system over one replay (every call). */
export interface CacheFigures {
  /** Requests simulated (one before every assistant message of the root agent). */
  calls: number;
  /** Mean over calls of (common prefix with the previous request ÷ request tokens); the first call counts 0. */
  cachedShare: number;
  /** Tokens of every request summed. */
  inputTokens: number;
  /** Of them, tokens past the common prefix (written to the cache, or billed as fresh input). */
  uncachedTokens: number;
  /** Plan commits (ours) or compactions (a baseline rerun on overflow). */
  commits: number;
  /** Calls whose render needed the emergency fit (ours; 0 for the baselines, which have none). */
  emergencyFits: number;
  /**
   * What those emergency fits took, summed over calls (ours): messages and whole summaries dropped,
   * summaries trimmed and the summary items that went, tool results cleared.
   */
  emergencyDropped: {
    messages: number;
    summaries: number;
    trimmedSummaries: number;
    summaryItems: number;
    clearedResults: number;
  };
  /** Calls whose common prefix with the previous request was under half of the previous request. */
  breaks: number;
  /**
   * Uncached tokens by what the call followed: a commit (ours: a new plan; a baseline: its
   * compaction), an emergency fit (ours), or neither (appends, the tail); `recall` takes the
   * uncached tokens of recall blocks (marked `[Recalled from earlier in this conversation`), whatever
   * the call followed, so the ephemeral block's own cost shows apart (ADR-0210).
   */
  uncachedBy: Record<CallCause | 'recall', number>;
  /** Anthropic Sonnet list prices: prefix as cache read, the rest as cache write. */
  costUsd: number;
  /** OpenAI GPT-4.1 list prices: cached prefix (≥1,024 tokens, 128-token steps) at the cached rate. */
  openAiCostUsd: number;
  /** Every request billed as plain input at Anthropic's price: what no caching at all would cost. */
  uncachedCostUsd: number;
}

/** What a call followed, for the attribution of uncached tokens. */
export type CallCause = 'commit' | 'emergencyFit' | 'other';

/** What one call of the meter measured. */
export interface CacheCall {
  requestTokens: number;
  cachedTokens: number;
}

type Json = unknown;

/** How a recall block starts (ours and the sliding window + recall baseline): its uncached tokens are `recall`'s. */
const RECALL_MARKER = '[Recalled from earlier in this conversation';

/** The keys a provider's cache does not hash (breakpoint markers): dropped before comparing. */
const IGNORED_KEYS = new Set(['cache_control', 'providerOptions']);

function canonical(value: Json): string {
  return JSON.stringify(value, (key, inner: unknown) => (IGNORED_KEYS.has(key) ? undefined : inner));
}

/**
 * A request as the provider's cache sees it: one string per block, in provider order (tools, then
 * system, then each message or input item). Breakpoint markers (`cache_control`) are left out.
 *
 * @param request - A rendered request of any provider format (`anthropic`, `openai-chat`,
 *   `openai-responses`, `ai-sdk`).
 * @returns The serialized blocks.
 */
export function requestBlocks(request: unknown): string[] {
  if (request === null || typeof request !== 'object') return [];
  const body = request as Record<string, Json>;
  const blocks: string[] = [];
  const tools = body.tools;
  if (Array.isArray(tools)) for (const tool of tools) blocks.push(canonical(tool));
  else if (tools && typeof tools === 'object')
    for (const [name, tool] of Object.entries(tools)) blocks.push(canonical({ [name]: tool }));
  for (const key of ['system', 'instructions']) {
    const system = body[key];
    if (system === undefined || system === '') continue;
    if (Array.isArray(system)) for (const block of system) blocks.push(canonical(block));
    else blocks.push(canonical(system));
  }
  for (const key of ['messages', 'input']) {
    const items = body[key];
    if (Array.isArray(items)) for (const item of items) blocks.push(canonical(item));
  }
  return blocks;
}

function commonPrefixLength(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  let index = 0;
  while (index < length && left.charCodeAt(index) === right.charCodeAt(index)) index += 1;
  // Never split a surrogate pair.
  if (index > 0 && index < length && (left.charCodeAt(index - 1) & 0xfc00) === 0xd800) index -= 1;
  return index;
}

/** Counts text in tokens (the run's tokenizer). */
export type CountTokens = (text: string) => number;

/**
 * Measures consecutive requests of one system: call {@link CacheMeter.observe} with each request in
 * order, then {@link CacheMeter.figures}.
 */
export class CacheMeter {
  private previous: string[] = [];
  private readonly counts = new Map<string, number>();
  private calls = 0;
  private shareSum = 0;
  private inputTokens = 0;
  private uncachedTokens = 0;
  private breaks = 0;
  private costUsd = 0;
  private openAiCostUsd = 0;
  private previousTokens = 0;
  private readonly uncachedBy: Record<CallCause | 'recall', number> = {
    commit: 0,
    emergencyFit: 0,
    other: 0,
    recall: 0,
  };

  constructor(private readonly countTokens: CountTokens) {}

  private count(block: string): number {
    let tokens = this.counts.get(block);
    if (tokens === undefined) {
      tokens = this.countTokens(block);
      // Bounded: a long replay sees each block many times, but not forever.
      if (this.counts.size > 50_000) this.counts.clear();
      this.counts.set(block, tokens);
    }
    return tokens;
  }

  /**
   * One request, after the previous one.
   *
   * @param request - The rendered request (any provider format).
   * @param cause - What the call followed (a commit, an emergency fit), for `uncachedBy`.
   * @returns Its tokens and the tokens of its common prefix with the previous request.
   */
  observe(request: unknown, cause: CallCause = 'other'): CacheCall {
    const blocks = requestBlocks(request);
    let requestTokens = 0;
    let cachedTokens = 0;
    let recallTokens = 0;
    let matching = true;
    for (const [index, block] of blocks.entries()) {
      const tokens = this.count(block);
      requestTokens += tokens;
      if (!matching) {
        if (block.includes(RECALL_MARKER)) recallTokens += tokens;
        continue;
      }
      const before = this.previous[index];
      if (before === block) {
        cachedTokens += tokens;
        continue;
      }
      matching = false;
      let shared = 0;
      if (before !== undefined) {
        const length = commonPrefixLength(before, block);
        if (length > 0) shared = Math.min(tokens, this.countTokens(block.slice(0, length)));
      }
      cachedTokens += shared;
      if (block.includes(RECALL_MARKER)) recallTokens += tokens - shared;
    }
    this.previous = blocks;
    this.calls += 1;
    this.inputTokens += requestTokens;
    this.uncachedTokens += requestTokens - cachedTokens;
    this.uncachedBy.recall += recallTokens;
    this.uncachedBy[cause] += requestTokens - cachedTokens - recallTokens;
    if (requestTokens > 0) this.shareSum += cachedTokens / requestTokens;
    if (this.calls > 1 && cachedTokens < this.previousTokens / 2) this.breaks += 1;
    this.previousTokens = requestTokens;
    this.costUsd += costOf(CACHE_PRICES.anthropic, requestTokens, cachedTokens);
    this.openAiCostUsd += costOf(CACHE_PRICES.openai, requestTokens, cachedTokens);
    return { requestTokens, cachedTokens };
  }

  /** The figures so far; `commits` and the emergency counts are the caller's. */
  figures(extra: Pick<CacheFigures, 'commits' | 'emergencyFits' | 'emergencyDropped'>): CacheFigures {
    return {
      calls: this.calls,
      cachedShare: this.calls === 0 ? 0 : this.shareSum / this.calls,
      inputTokens: this.inputTokens,
      uncachedTokens: this.uncachedTokens,
      ...extra,
      breaks: this.breaks,
      uncachedBy: { ...this.uncachedBy },
      costUsd: this.costUsd,
      openAiCostUsd: this.openAiCostUsd,
      uncachedCostUsd: (this.inputTokens * CACHE_PRICES.anthropic.inputPerMTok) / 1_000_000,
    };
  }
}

/**
 * The cost of one request under `prices`: the cached prefix (rounded down to the provider's step,
 * nothing under its minimum) at the read price, the rest at the write price.
 */
export function costOf(prices: CachePrices, requestTokens: number, cachedTokens: number): number {
  let cached = cachedTokens < prices.minimumCachedTokens ? 0 : cachedTokens;
  cached -= cached % prices.cachedIncrement;
  return (cached * prices.cacheReadPerMTok + (requestTokens - cached) * prices.cacheWritePerMTok) / 1_000_000;
}

/** Mean request tokens over a replay's calls (0 when none). */
export function meanRequestTokens(figures: Pick<CacheFigures, 'calls' | 'inputTokens'>): number {
  return figures.calls === 0 ? 0 : figures.inputTokens / figures.calls;
}

/** No emergency drops. */
export const noEmergencyDrops = (): CacheFigures['emergencyDropped'] => ({
  messages: 0,
  summaries: 0,
  trimmedSummaries: 0,
  summaryItems: 0,
  clearedResults: 0,
});
