import {
  approximateBytes,
  type CompactionPlan,
  type CompactionRecord,
  type NormalizedPlan,
  type ToolDefinition,
} from '@compactor/core';
import { type MemoOwner, ThreadRenderMemo } from './thread-render-memo.js';

/** A countable piece of the request: its wire form (shared, never mutated) and its token count. */
export interface Piece {
  tokens: number;
  /** Wire messages, items or blocks, depending on what the piece is. */
  wire: readonly unknown[];
  /** The role of the first wire message, for the user-first rule. */
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** Log sequence number of the source message (a cheap guard against reused ids); 0 for synthetic. */
  seq: number;
}

/** The tools as sent and what they cost. */
export interface ToolsPart {
  wire: unknown[];
  tokens: number;
}

/** How much memory a {@link RenderCache} may keep. */
export interface RenderCacheOptions {
  /**
   * The most memory (estimated) the cache keeps, in bytes: least recently rendered threads are
   * dropped first, then a thread's oldest pieces. 0 keeps nothing between calls
   * (every render formats and counts everything again, with the same result).
   * @defaultValue {@link DEFAULT_RENDER_CACHE_BYTES} (64 MiB)
   */
  maxBytes?: number;
}

/** Counters and memory of a {@link RenderCache}, for metrics. */
export interface RenderCacheStats {
  /** Pieces served from memory. */
  hits: number;
  /** Pieces formatted and counted anew. */
  misses: number;
  /** Bytes held now (estimated). */
  bytes: number;
  /** The configured bound. */
  maxBytes: number;
  /** Threads with a memo now. */
  threads: number;
  /** Threads dropped, and threads that had to drop some of their own pieces, to stay within maxBytes. */
  evictions: number;
  /**
   * Plan recall indexes built from nothing (ADR-0111): one per plan content and thread memo while
   * it stays cached; more means a render rebuilt what it could have extended (ADR-0120).
   */
  recallIndexBuilds: number;
  /** Plan resolutions built from nothing, rather than extended from the remembered one. */
  resolutionBuilds: number;
  /**
   * Recall searches asked of a plan's index (ADR-0111): `run` searched it, `remembered` were answered
   * from its memo. Under the append placement a call asks for its new turns only (ADR-0305).
   */
  recallSearches: { run: number; remembered: number };
}

/** The render cache's memory bound when none is given: 64 MiB. */
export const DEFAULT_RENDER_CACHE_BYTES = 64 * 1024 * 1024;
/** Tools memoized by content: a runtime rarely has more distinct tool sets than this. */
const MAX_TOOL_SETS_BY_CONTENT = 64;

interface RememberedTools {
  part: ToolsPart;
  bytes: number;
}

/**
 * The memo a runtime keeps between render calls: one object, owned by whoever owns the render
 * context (the ingest app, an engine, an agent runtime). Correct because the log is append-only: a
 * message id's content never changes, so its rendered form and token count can be reused until the
 * render format version, the provider or the tokenizer changes (all part of a thread's key, with
 * the tenant). Bounded by bytes (`maxBytes`), least recently rendered threads evicted first.
 *
 * Memos keyed by the caller's own objects (its plan, records, tools array) are WeakMaps: they live
 * exactly as long as the caller keeps those objects, and hold only what those objects determine.
 */
export class RenderCache {
  /** Insertion order is recency: the least recently rendered thread first. */
  readonly #threads = new Map<string, ThreadRenderMemo>();
  readonly #maxBytes: number;
  readonly #owner: MemoOwner;
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #recallIndexBuilds = 0;
  #resolutionBuilds = 0;
  #recallSearchesRun = 0;
  #recallSearchesRemembered = 0;
  readonly #normalizedPlans = new WeakMap<CompactionPlan, NormalizedPlan>();
  readonly #recordTexts = new WeakMap<CompactionRecord, string>();
  readonly #toolsByArray = new WeakMap<readonly ToolDefinition[], Map<string, ToolsPart>>();
  readonly #toolsByContent = new Map<string, RememberedTools>();
  readonly #requestOverhead = new Map<string, number>();
  readonly #withCompactorTools = new WeakMap<
    readonly ToolDefinition[],
    Map<string, readonly ToolDefinition[]>
  >();

  /** @param options - The memory bound; a non-finite or non-positive `maxBytes` keeps nothing. */
  constructor(options: RenderCacheOptions = {}) {
    const maxBytes = options.maxBytes ?? DEFAULT_RENDER_CACHE_BYTES;
    this.#maxBytes = Number.isFinite(maxBytes) && maxBytes > 0 ? maxBytes : 0;
    this.#owner = {
      grew: (memo, bytes) => this.#charge(memo, bytes),
      hit: () => {
        this.#hits += 1;
      },
      miss: () => {
        this.#misses += 1;
      },
      built: (kind) => {
        if (kind === 'recall-index') this.#recallIndexBuilds += 1;
        else this.#resolutionBuilds += 1;
      },
      recallSearched: (ran) => {
        if (ran) this.#recallSearchesRun += 1;
        else this.#recallSearchesRemembered += 1;
      },
    };
  }

  /**
   * The memo of one thread rendering, marked most recently used.
   *
   * @param key - Names tenant, thread, provider, tokenizer and format.
   * @returns The thread's memo, created empty on first use.
   */
  thread(key: string): ThreadRenderMemo {
    let memo = this.#threads.get(key);
    if (memo) {
      // Re-inserted: the most recently rendered.
      this.#threads.delete(key);
    } else {
      memo = new ThreadRenderMemo(this.#owner);
    }
    this.#threads.set(key, memo);
    return memo;
  }

  /**
   * The plan normalized once per plan object.
   *
   * @param plan - The caller's plan object (the memo lives as long as it does).
   * @param normalize - Called on a miss.
   * @returns The normalized plan.
   */
  normalizedPlan(plan: CompactionPlan, normalize: (plan: CompactionPlan) => NormalizedPlan): NormalizedPlan {
    let normalized = this.#normalizedPlans.get(plan);
    if (!normalized) {
      normalized = normalize(plan);
      this.#normalizedPlans.set(plan, normalized);
    }
    return normalized;
  }

  /**
   * A record's synthetic text, built once per record object.
   *
   * @param record - The plan's record object.
   * @param make - Builds the text on a miss.
   * @returns The text.
   */
  recordText(record: CompactionRecord, make: (record: CompactionRecord) => string): string {
    let text = this.#recordTexts.get(record);
    if (text === undefined) {
      text = make(record);
      this.#recordTexts.set(record, text);
    }
    return text;
  }

  /**
   * Formatted tools and their count, once per tools array and `key` (provider and tokenizer); a
   * runtime that builds an equal tools array for every call is served by content.
   *
   * @param tools - The caller's tools array.
   * @param key - Names provider and tokenizer.
   * @param make - Formats and counts the tools on a miss.
   * @returns The tools as sent, with their tokens.
   */
  toolsPart(tools: readonly ToolDefinition[], key: string, make: () => ToolsPart): ToolsPart {
    let byKey = this.#toolsByArray.get(tools);
    if (!byKey) {
      byKey = new Map();
      this.#toolsByArray.set(tools, byKey);
    }
    let part = byKey.get(key);
    if (part) return part;
    const contentKey = `${key}\u0000${JSON.stringify(tools)}`;
    part = this.#toolsByContent.get(contentKey)?.part;
    if (!part) {
      part = make();
      const bytes = approximateBytes(contentKey) + approximateBytes(part);
      this.#toolsByContent.set(contentKey, { part, bytes });
      this.#charge(undefined, bytes);
      if (this.#toolsByContent.size > MAX_TOOL_SETS_BY_CONTENT) this.#dropOldestToolSet();
    }
    byKey.set(key, part);
    return part;
  }

  /**
   * Request-level formatting overhead by provider and tokenizer.
   *
   * @param key - Names provider and tokenizer.
   * @param compute - Counts the overhead on a miss.
   * @returns The overhead in tokens.
   */
  requestOverhead(key: string, compute: () => number): number {
    let overhead = this.#requestOverhead.get(key);
    if (overhead === undefined) {
      overhead = compute();
      this.#requestOverhead.set(key, overhead);
      this.#charge(undefined, overheadEntryBytes(key));
    }
    return overhead;
  }

  /**
   * The caller's tools with Compactor's own tools added (ADR-0141), the same array for the same tools
   * array and names, so the formatted tools part stays memoized by identity.
   *
   * @param tools - The caller's tools array.
   * @param names - Which of Compactor's tools are added, as one key (`read_artifact,search_history`).
   * @param augment - Adds them on a miss.
   * @returns The augmented array.
   */
  toolsWithCompactorTools(
    tools: readonly ToolDefinition[],
    names: string,
    augment: (tools: readonly ToolDefinition[]) => readonly ToolDefinition[],
  ): readonly ToolDefinition[] {
    let byNames = this.#withCompactorTools.get(tools);
    if (!byNames) {
      byNames = new Map();
      this.#withCompactorTools.set(tools, byNames);
    }
    let augmented = byNames.get(names);
    if (!augmented) {
      augmented = augment(tools);
      byNames.set(names, augmented);
    }
    return augmented;
  }

  /** A snapshot of the counters and of the memory held. */
  get stats(): RenderCacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      bytes: this.#bytes,
      maxBytes: this.#maxBytes,
      threads: this.#threads.size,
      evictions: this.#evictions,
      recallIndexBuilds: this.#recallIndexBuilds,
      resolutionBuilds: this.#resolutionBuilds,
      recallSearches: { run: this.#recallSearchesRun, remembered: this.#recallSearchesRemembered },
    };
  }

  /** Threads with a memo now. */
  get threadCount(): number {
    return this.#threads.size;
  }

  /** Forget every thread and every memo by content (object-keyed memos go with their objects). */
  clear(): void {
    for (const memo of this.#threads.values()) memo.detach();
    this.#threads.clear();
    this.#toolsByContent.clear();
    this.#requestOverhead.clear();
    this.#bytes = 0;
  }

  /**
   * Account for `bytes` more (fewer, when negative) held by `memo` (or by the cache itself), then
   * get back within budget: drop the least recently rendered other threads, then the oldest tool
   * sets, then the oldest pieces of `memo` itself (a thread larger than the whole budget).
   */
  #charge(memo: ThreadRenderMemo | undefined, bytes: number): void {
    if (memo?.detached) return;
    this.#bytes += bytes;
    if (this.#bytes <= this.#maxBytes) return;
    for (const [key, other] of this.#threads) {
      if (this.#bytes <= this.#maxBytes) return;
      if (other === memo) continue;
      this.#threads.delete(key);
      other.detach();
      this.#bytes -= other.bytes;
      this.#evictions += 1;
    }
    while (this.#bytes > this.#maxBytes && this.#toolsByContent.size > 0) this.#dropOldestToolSet();
    for (const key of this.#requestOverhead.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#requestOverhead.delete(key);
      this.#bytes -= overheadEntryBytes(key);
    }
    if (memo && this.#bytes > this.#maxBytes) {
      this.#bytes -= memo.shed(this.#bytes - this.#maxBytes);
      this.#evictions += 1;
    }
  }

  #dropOldestToolSet(): void {
    const [key, oldest] = this.#toolsByContent.entries().next().value as [string, RememberedTools];
    this.#toolsByContent.delete(key);
    this.#bytes -= oldest.bytes;
  }
}

function overheadEntryBytes(key: string): number {
  return approximateBytes(key) + approximateBytes(0);
}

/**
 * A render cache to keep between render calls.
 *
 * @param options - The memory bound.
 * @returns A new, empty cache.
 */
export function createRenderCache(options: RenderCacheOptions = {}): RenderCache {
  return new RenderCache(options);
}
