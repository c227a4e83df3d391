import type { ProviderName } from '@compactor/core';

/**
 * A prompt-cache simulator for the eval (ADR-0140): each request a system sends is serialized in
 * provider order (tools, then system, then messages), counted in tokens by our tokenizer, and
 * compared with the request before it; an image or document part counts as the provider bills it
 * (the tokenizer's estimate, ADR-0470), not as its JSON, and is cached only whole. The longest
 * common prefix (in tokens) is what a provider's prefix cache could serve; the rest is written to
 * the cache (Anthropic) or billed as fresh input (OpenAI). Cost is estimated at list prices stated
 * in {@link CACHE_PRICES}.
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
 * The request's blocks as values, in provider order (tools, then system, then each message or
 * input item); {@link requestBlocks} serializes them.
 */
function requestBlockValues(request: unknown): Json[] {
  if (request === null || typeof request !== 'object') return [];
  const body = request as Record<string, Json>;
  const blocks: Json[] = [];
  const tools = body.tools;
  if (Array.isArray(tools)) blocks.push(...tools);
  else if (tools && typeof tools === 'object')
    for (const [name, tool] of Object.entries(tools)) blocks.push({ [name]: tool });
  for (const key of ['system', 'instructions']) {
    const system = body[key];
    if (system === undefined || system === '') continue;
    if (Array.isArray(system)) blocks.push(...system);
    else blocks.push(system);
  }
  for (const key of ['messages', 'input']) {
    const items = body[key];
    if (Array.isArray(items)) blocks.push(...items);
  }
  return blocks;
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
  return requestBlockValues(request).map(canonical);
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
 * Counts one image or document part as the provider bills it (the tokenizer's `countMediaPart` for
 * the run's format, ADR-0470); `undefined` for anything else.
 */
export type CountMedia = (part: unknown) => number | undefined;

/** A stretch of a serialized block: text counted as text, or one media part counted whole. */
interface BlockPiece {
  /** Characters of the serialized block. */
  length: number;
  tokens: number;
  /** The text (text pieces only; a media piece is never counted in part). */
  text?: string;
}

/** A serialized block and its pieces (one text piece when it holds no media). */
interface MeteredBlock {
  text: string;
  tokens: number;
  pieces: BlockPiece[];
}

/** Stands for a media part while its block is serialized; never in a request (control characters). */
const MEDIA_SENTINEL = '\u0001compactor-meter-media\u0001';
const SERIALIZED_SENTINEL = JSON.stringify(MEDIA_SENTINEL);

/**
 * Measures consecutive requests of one system: call {@link CacheMeter.observe} with each request in
 * order, then {@link CacheMeter.figures}.
 */
export class CacheMeter {
  private previous: string[] = [];
  private readonly measured = new Map<string, MeteredBlock>();
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

  /**
   * @param countTokens - Counts text (the run's tokenizer).
   * @param countMedia - Counts an image or document part as the provider bills it (ADR-0470);
   *   without it, every part is counted as its JSON text (a picture as its URL).
   */
  constructor(
    private readonly countTokens: CountTokens,
    private readonly countMedia?: CountMedia,
  ) {}

  /**
   * A block serialized, with its media parts found: each counts the provider's estimate, not its
   * JSON, and is a piece of its own so that a common prefix caches it only whole.
   */
  private measure(value: Json): MeteredBlock {
    const media: { text: string; tokens: number }[] = [];
    const countMedia = this.countMedia;
    const serialized = countMedia
      ? JSON.stringify(value, (key, inner: unknown) => {
          if (IGNORED_KEYS.has(key)) return undefined;
          if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
          const tokens = countMedia(inner);
          if (tokens === undefined) return inner;
          media.push({ text: canonical(inner), tokens });
          return MEDIA_SENTINEL;
        })
      : canonical(value);
    if (media.length === 0) {
      const known = this.measured.get(serialized);
      if (known) return known;
      const tokens = this.countTokens(serialized);
      return this.remember({
        text: serialized,
        tokens,
        pieces: [{ length: serialized.length, tokens, text: serialized }],
      });
    }
    const texts = serialized.split(SERIALIZED_SENTINEL);
    const text = texts.reduce((joined, piece, index) => joined + (media[index - 1]?.text ?? '') + piece);
    const known = this.measured.get(text);
    if (known) return known;
    const pieces: BlockPiece[] = [];
    for (const [index, piece] of texts.entries()) {
      if (index > 0) pieces.push({ length: media[index - 1]!.text.length, tokens: media[index - 1]!.tokens });
      if (piece.length > 0)
        pieces.push({ length: piece.length, tokens: this.countTokens(piece), text: piece });
    }
    return this.remember({ text, tokens: pieces.reduce((sum, piece) => sum + piece.tokens, 0), pieces });
  }

  private remember(block: MeteredBlock): MeteredBlock {
    // Bounded: a long replay sees each block many times, but not forever.
    if (this.measured.size > 50_000) this.measured.clear();
    this.measured.set(block.text, block);
    return block;
  }

  /**
   * Tokens of the first `length` characters of `block`: its whole pieces, then the start of a
   * text piece; a media piece counts only when the prefix takes all of it.
   */
  private prefixTokens(block: MeteredBlock, length: number): number {
    let tokens = 0;
    let start = 0;
    for (const piece of block.pieces) {
      const end = start + piece.length;
      if (length >= end) {
        tokens += piece.tokens;
        start = end;
        continue;
      }
      if (piece.text !== undefined && length > start) {
        tokens += Math.min(piece.tokens, this.countTokens(piece.text.slice(0, length - start)));
      }
      break;
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
    const metered = requestBlockValues(request).map((value) => this.measure(value));
    const blocks = metered.map((block) => block.text);
    let requestTokens = 0;
    let cachedTokens = 0;
    let recallTokens = 0;
    let matching = true;
    for (const [index, block] of blocks.entries()) {
      const tokens = metered[index]!.tokens;
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
      const shared =
        before === undefined ? 0 : this.prefixTokens(metered[index]!, commonPrefixLength(before, block));
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
 * The meter of a replay (ADR-0470): text counted by the run's tokenizer, and each image or document
 * part of the request at the estimate the tokenizer's request counter charges for it in the run's
 * format (`countMediaPart`: the per-image estimate, a PDF's pages).
 *
 * @param tokenizer - The run's tokenizer.
 * @param provider - The format the requests are rendered in.
 * @returns A meter with no calls yet.
 */
export function cacheMeterFor(
  tokenizer: {
    count(text: string): number;
    countMediaPart(part: unknown, provider: ProviderName): number | undefined;
  },
  provider: ProviderName,
): CacheMeter {
  return new CacheMeter(
    (text) => tokenizer.count(text),
    (part) => tokenizer.countMediaPart(part, provider),
  );
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
