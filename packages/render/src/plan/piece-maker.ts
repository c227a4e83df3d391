import type {
  ExternalizationRecord,
  Message,
  ProviderName,
  SummarizationRecord,
  ThreadMessage,
  Tokenizer,
  ToolResultPart,
} from '@compactor/core';
import type { Piece, RenderCache, ThreadRenderCache } from '../cache/render-cache.js';
import type { ProviderFormat } from '../providers/provider-format.js';
import { type Truncated, truncateToTokens } from '../rehydration/truncate-to-tokens.js';
import {
  clearedPlaceholderText,
  externalizationText,
  MISSING_RESULT_TEXT,
  summaryText,
} from '../synthetic-text.js';
import { prepareMessage, prepareResult } from './prepare-message.js';
import type { ToolExchange } from './tool-exchanges.js';

/**
 * Makes the request's pieces, each formatted and counted once and then served from the cache:
 * nothing unchanged is formatted or tokenized twice.
 */
export class PieceMaker {
  readonly #thread: ThreadRenderCache;
  readonly #cache: RenderCache;
  readonly #format: ProviderFormat;
  readonly #tokenizer: Tokenizer;
  readonly #provider: ProviderName;

  constructor(cache: RenderCache, thread: ThreadRenderCache, format: ProviderFormat, tokenizer: Tokenizer) {
    this.#cache = cache;
    this.#thread = thread;
    this.#format = format;
    this.#tokenizer = tokenizer;
    this.#provider = format.provider;
  }

  get format(): ProviderFormat {
    return this.#format;
  }

  /** A user, assistant or system message from the log; null when it sends nothing. */
  message(message: ThreadMessage, calls: readonly ToolExchange[] | undefined): Piece | null {
    const cached = this.#thread.messages.get(message.id);
    if (cached !== undefined && (cached === null || cached.seq === message.seq)) {
      this.#cache.stats.hits += 1;
      return cached;
    }
    this.#cache.stats.misses += 1;
    const prepared = prepareMessage(message, calls, this.#format);
    const piece = prepared === null ? null : this.#piece(prepared, message.seq);
    this.#thread.messages.set(message.id, piece);
    return piece;
  }

  /** A tool result as logged. */
  rawResult(message: ThreadMessage, partIndex: number, part: ToolResultPart, exchange: ToolExchange): Piece {
    const key = `${message.id}\u0000${partIndex}`;
    const cached = this.#thread.results.get(key);
    if (cached !== undefined && cached.seq === message.seq) {
      this.#cache.stats.hits += 1;
      return cached;
    }
    this.#cache.stats.misses += 1;
    const piece = this.#resultPiece(part, exchange, part.content, message.seq);
    this.#thread.results.set(key, piece);
    return piece;
  }

  /**
   * A cleared result's placeholder. `owner` is the object its fields come from (a clear record's
   * entry, or the result part itself), so a runtime that keeps its plan object never rebuilds it.
   */
  placeholder(
    owner: object,
    part: ToolResultPart,
    exchange: ToolExchange,
    fields: () => { toolName: string; outcome: string; keyFields: Record<string, unknown> },
  ): Piece {
    const known = this.#thread.placeholders.get(owner);
    if (known) {
      this.#cache.stats.hits += 1;
      return known;
    }
    const { toolName, outcome, keyFields } = fields();
    const text = clearedPlaceholderText(toolName, outcome, keyFields);
    const piece = this.#textResult(`c\u0000${exchange.providerId}\u0000${text}`, part, exchange, text);
    this.#thread.placeholders.set(owner, piece);
    return piece;
  }

  /** A tool result externalized in place: the pointer text in the result's slot. */
  externalizedResult(record: ExternalizationRecord, part: ToolResultPart, exchange: ToolExchange): Piece {
    let text = this.#cache.recordTexts.get(record);
    if (text === undefined) {
      text = externalizationText(record);
      this.#cache.recordTexts.set(record, text);
    }
    return this.#textResult(`x\u0000${exchange.providerId}\u0000${text}`, part, exchange, text);
  }

  /** A tool result cut to fit the window (the last resort for an oversized newest exchange). */
  truncatedResult(part: ToolResultPart, exchange: ToolExchange, text: string): Piece {
    return this.#textResult(`t\u0000${exchange.providerId}\u0000${text}`, part, exchange, text);
  }

  get tokenizer(): Tokenizer {
    return this.#tokenizer;
  }

  /** A result cleared (or externalized in place) by a plan's record: memoized by (record, result part) objects. */
  clearedByRecord(record: object, part: ToolResultPart, make: () => Piece): Piece {
    let byPart = this.#thread.clearedByRecord.get(record);
    if (!byPart) {
      byPart = new WeakMap();
      this.#thread.clearedByRecord.set(record, byPart);
    }
    const known = byPart.get(part);
    if (known) {
      this.#cache.stats.hits += 1;
      return known;
    }
    const piece = make();
    byPart.set(part, piece);
    return piece;
  }

  /** The answer to a call that has no result in the log. */
  missingResult(exchange: ToolExchange): Piece {
    const part: ToolResultPart = {
      type: 'tool_result',
      toolName: exchange.toolName,
      toolCallId: exchange.callId,
      outcome: 'failure',
      content: MISSING_RESULT_TEXT,
      keyFields: {},
    };
    return this.#textResult(`m\u0000${exchange.providerId}`, part, exchange, MISSING_RESULT_TEXT);
  }

  /** A summary or externalization pointer, as an assistant message (or user, when it opens the conversation). */
  record(record: SummarizationRecord | ExternalizationRecord, role: 'user' | 'assistant'): Piece {
    let byRole = this.#thread.records.get(record);
    const known = byRole?.[role];
    if (known) {
      this.#cache.stats.hits += 1;
      return known;
    }
    let text = this.#cache.recordTexts.get(record);
    if (text === undefined) {
      text = record.kind === 'summarize' ? summaryText(record) : externalizationText(record);
      this.#cache.recordTexts.set(record, text);
    }
    const piece = this.text(text, role);
    if (!byRole) {
      byRole = {};
      this.#thread.records.set(record, byRole);
    }
    byRole[role] = piece;
    return piece;
  }

  /** Artifact content cut to `cap` tokens (artifacts are content-addressed: the id fixes the content). */
  truncated(artifactId: string, content: string, cap: number): Truncated {
    const key = `${artifactId}\u0000${cap}\u0000${content.length}`;
    const cached = this.#thread.truncations.get(key);
    if (cached) return cached;
    const result = truncateToTokens(content, cap, this.#tokenizer);
    this.#thread.truncations.set(key, result);
    return result;
  }

  /** The caller's system prompt, counted as a system message (0 when empty). */
  systemPrompt(text: string): number {
    if (text === '') return 0;
    const key = `system\u0000${text}`;
    const cached = this.#thread.synthetic.get(key);
    if (cached) return cached.tokens;
    const tokens = this.#tokenizer.countMessage(
      { id: 'system', role: 'system', content: [{ type: 'text', text }] },
      this.#provider,
    );
    this.#thread.synthetic.set(key, { tokens, wire: [], role: 'system', seq: 0 });
    return tokens;
  }

  /** Any synthetic text message. */
  text(text: string, role: 'user' | 'assistant'): Piece {
    const key = `${role}\u0000${text}`;
    const cached = this.#thread.synthetic.get(key);
    if (cached) {
      this.#cache.stats.hits += 1;
      return cached;
    }
    this.#cache.stats.misses += 1;
    const piece = this.#piece({ id: 'synthetic', role, content: [{ type: 'text', text }] }, 0);
    this.#thread.synthetic.set(key, piece);
    return piece;
  }

  #textResult(key: string, part: ToolResultPart, exchange: ToolExchange, text: string): Piece {
    const cached = this.#thread.results.get(key);
    if (cached) {
      this.#cache.stats.hits += 1;
      return cached;
    }
    this.#cache.stats.misses += 1;
    const piece = this.#resultPiece(part, exchange, text, 0);
    this.#thread.results.set(key, piece);
    return piece;
  }

  #resultPiece(
    part: ToolResultPart,
    exchange: ToolExchange,
    content: ToolResultPart['content'],
    seq: number,
  ): Piece {
    const prepared = prepareResult(part, exchange.providerId, content);
    const sent = prepared.content[0] as ToolResultPart;
    return {
      tokens: this.#tokenizer.countMessage(prepared, this.#provider),
      wire: [this.#format.formatResult(sent)],
      role: 'tool',
      seq,
    };
  }

  #piece(message: Message, seq: number): Piece {
    const wire = this.#format.formatMessage(message);
    const first = wire[0] as { role?: string } | undefined;
    const units = this.#format.countUnits?.(message) ?? [message];
    let tokens = 0;
    for (const unit of units) tokens += this.#tokenizer.countMessage(unit, this.#provider);
    return {
      tokens,
      wire,
      role: wireRole(first?.role, message.role),
      seq,
    };
  }
}

function wireRole(wire: string | undefined, fallback: Message['role']): Piece['role'] {
  if (wire === 'user' || wire === 'assistant' || wire === 'system' || wire === 'tool') return wire;
  return fallback;
}
