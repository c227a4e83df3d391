import type { CompactionPlan, CompactionRecord, NormalizedPlan, ToolDefinition } from '@compactor/core';
import type { PlanResolution } from '../plan/resolve-plan.js';
import type { ToolExchangeIndex } from '../plan/tool-exchanges.js';

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

/** Everything memoized for one (thread, provider, tokenizer, render format) combination. */
export interface ThreadRenderCache {
  /** Prepared user/assistant/system messages by message id; null = the message sends nothing. */
  messages: Map<string, Piece | null>;
  /** Tool results by `messageId \0 partIndex` (raw) or by provider call id and placeholder text. */
  results: Map<string, Piece>;
  /** Synthetic messages (summaries, pointers, notes) by role and text. */
  synthetic: Map<string, Piece>;
  /** Placeholders by the object that determines them (a clear record's entry, or the result part). */
  placeholders: WeakMap<object, Piece>;
  /** Plan-cleared results by clear record, then by result part. */
  clearedByRecord: WeakMap<object, WeakMap<object, Piece>>;
  /** Synthetic record messages by record object and role. */
  records: WeakMap<object, Partial<Record<'user' | 'assistant', Piece>>>;
  /** Rehydrated artifact content truncated to a token cap, by artifact id and cap. */
  truncations: Map<string, { text: string; tokens: number; truncated: boolean }>;
  exchanges: ToolExchangeIndex | undefined;
  /** Plan resolutions by plan object (or NO_PLAN) and agent. */
  resolutions: WeakMap<object, Map<string, PlanResolution>>;
}

/** Stands for "no plan" as a resolution cache key. */
export const NO_PLAN: object = Object.freeze({});

export interface RenderCacheOptions {
  /** Threads kept (least recently rendered evicted first). Default 256. */
  maxThreads?: number;
  /** Entries per thread before its memo is reset. Default 100,000. */
  maxEntriesPerThread?: number;
}

export interface RenderCacheStats {
  hits: number;
  misses: number;
}

/**
 * Memo a runtime keeps between render calls. Correct because the log is append-only: a message
 * id's content never changes, so its rendered form and token count can be reused until the render
 * format version, the provider or the tokenizer changes (all part of the key). Bounded.
 */
export class RenderCache {
  readonly #threads = new Map<string, ThreadRenderCache>();
  readonly #maxThreads: number;
  readonly #maxEntriesPerThread: number;
  /** Normalized plans by plan object: a runtime holding its current plan normalizes it once. */
  readonly normalizedPlans = new WeakMap<CompactionPlan, NormalizedPlan>();
  /** Synthetic texts by record object. */
  readonly recordTexts = new WeakMap<CompactionRecord, string>();
  /** Formatted tools and their count by tools array, then by provider and tokenizer. */
  readonly tools = new WeakMap<readonly ToolDefinition[], Map<string, { wire: unknown[]; tokens: number }>>();
  /** The same by content, for runtimes that build a new tools array per call (bounded). */
  readonly toolsByContent = new Map<string, { wire: unknown[]; tokens: number }>();
  /** Request-level formatting overhead by provider and tokenizer. */
  readonly requestOverhead = new Map<string, number>();
  readonly stats: RenderCacheStats = { hits: 0, misses: 0 };

  constructor(options: RenderCacheOptions = {}) {
    this.#maxThreads = options.maxThreads ?? 256;
    this.#maxEntriesPerThread = options.maxEntriesPerThread ?? 100_000;
  }

  thread(key: string): ThreadRenderCache {
    let entry = this.#threads.get(key);
    if (entry) {
      // Re-insert so the map's order is least recently used first.
      this.#threads.delete(key);
      if (entry.messages.size + entry.results.size + entry.synthetic.size > this.#maxEntriesPerThread) {
        entry = undefined;
      }
    }
    entry ??= {
      messages: new Map(),
      results: new Map(),
      synthetic: new Map(),
      placeholders: new WeakMap(),
      clearedByRecord: new WeakMap(),
      records: new WeakMap(),
      truncations: new Map(),
      exchanges: undefined,
      resolutions: new WeakMap(),
    };
    this.#threads.set(key, entry);
    while (this.#threads.size > this.#maxThreads) {
      const oldest = this.#threads.keys().next().value as string;
      this.#threads.delete(oldest);
    }
    return entry;
  }

  rememberTools(key: string, part: { wire: unknown[]; tokens: number }): void {
    this.toolsByContent.set(key, part);
    if (this.toolsByContent.size > 64)
      this.toolsByContent.delete(this.toolsByContent.keys().next().value as string);
  }

  get threadCount(): number {
    return this.#threads.size;
  }

  clear(): void {
    this.#threads.clear();
    this.requestOverhead.clear();
    this.toolsByContent.clear();
  }
}

export function createRenderCache(options: RenderCacheOptions = {}): RenderCache {
  return new RenderCache(options);
}
