import {
  type AbridgeRecord,
  abridgedMessage,
  type CompactionPolicy,
  type DocumentPart,
  type ExternalizationRecord,
  type ImagePart,
  isDefaultSummaryStyle,
  type Message,
  type ProviderName,
  type SummarizationRecord,
  summaryMessages,
  type ThreadMessage,
  type Tokenizer,
  type ToolResultPart,
} from '@compactor/core';
import type { Piece, RenderCache } from '../cache/render-cache.js';
import type { ThreadRenderMemo } from '../cache/thread-render-memo.js';
import type { ProviderFormat } from '../providers/provider-format.js';
import { type Truncated, truncateToTokens } from '../rehydration/truncate-to-tokens.js';
import {
  clearedPlaceholderText,
  externalizationText,
  MISSING_RESULT_TEXT,
  rehydrationText,
  summaryText,
} from '../synthetic-text.js';
import { prepareMessage, prepareResult } from './prepare-message.js';
import type { ToolExchange } from './tool-exchanges.js';

/** Keys standing for a role in the (record, role) memo of synthetic record messages. */
const USER_ROLE: object = Object.freeze({ role: 'user' });
const ASSISTANT_ROLE: object = Object.freeze({ role: 'assistant' });

/**
 * Makes the request's pieces, each formatted and counted once and then served from the cache:
 * nothing unchanged is formatted or tokenized twice.
 */
export class PieceMaker {
  readonly #memo: ThreadRenderMemo;
  readonly #cache: RenderCache;
  readonly #format: ProviderFormat;
  readonly #tokenizer: Tokenizer;
  readonly #provider: ProviderName;
  /** The thread's summary style (ADR-0185), when it is not the default. */
  readonly #summaryStyle: Pick<CompactionPolicy, 'summaryStyle' | 'mode'> | undefined;

  constructor(
    cache: RenderCache,
    memo: ThreadRenderMemo,
    format: ProviderFormat,
    tokenizer: Tokenizer,
    policy?: Pick<CompactionPolicy, 'summaryStyle' | 'mode'>,
  ) {
    this.#cache = cache;
    this.#memo = memo;
    this.#format = format;
    this.#tokenizer = tokenizer;
    this.#provider = format.provider;
    this.#summaryStyle = policy && !isDefaultSummaryStyle(policy.summaryStyle) ? policy : undefined;
  }

  /** The thread's memo, for the other memoized facts of a render (e.g. a clear record's entries). */
  get memo(): ThreadRenderMemo {
    return this.#memo;
  }

  get format(): ProviderFormat {
    return this.#format;
  }

  /** A user, assistant or system message from the log; null when it sends nothing. */
  message(message: ThreadMessage, calls: readonly ToolExchange[] | undefined): Piece | null {
    return this.#memo.remember<Piece | null>(
      'message',
      message.id,
      () => {
        const prepared = prepareMessage(message, calls, this.#format);
        return prepared === null ? null : this.#piece(prepared, message.seq);
      },
      (cached) => cached === null || cached.seq === message.seq,
    );
  }

  /**
   * A message an abridge record keeps with stand-ins for its media and pastes (ADR-0265): memoized by
   * (record, message) objects, so a runtime that keeps its plan object formats it once.
   */
  abridgedMessage(
    message: ThreadMessage,
    record: AbridgeRecord,
    calls: readonly ToolExchange[] | undefined,
  ): Piece | null {
    return this.#memo.rememberByObjects(record, message, () => {
      const prepared = prepareMessage(abridgedMessage(message, record), calls, this.#format);
      return prepared === null ? null : this.#piece(prepared, message.seq);
    });
  }

  /** A tool result as logged. */
  rawResult(message: ThreadMessage, partIndex: number, part: ToolResultPart, exchange: ToolExchange): Piece {
    return this.#memo.remember(
      'raw-result',
      `${message.id}\u0000${partIndex}`,
      () => this.#resultPiece(part, exchange, part.content, message.seq, true),
      (cached) => cached.seq === message.seq,
    );
  }

  /** A tool result whose media an abridge record replaced (ADR-0311): memoized by the caller, per record. */
  abridgedResult(part: ToolResultPart, exchange: ToolExchange): Piece {
    return this.#resultPiece(part, exchange, part.content, 0, true);
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
    return this.#memo.rememberByObject('placeholder', owner, () => {
      const { toolName, outcome, keyFields } = fields();
      const text = clearedPlaceholderText(toolName, outcome, keyFields);
      return this.#textResult(`c\u0000${exchange.providerId}\u0000${text}`, part, exchange, text);
    });
  }

  /** A tool result externalized in place: the pointer text in the result's slot. */
  externalizedResult(record: ExternalizationRecord, part: ToolResultPart, exchange: ToolExchange): Piece {
    const text = this.#cache.recordText(record, () => externalizationText(record));
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
    return this.#memo.rememberByObjects(record, part, make);
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
    if (record.kind === 'summarize' && this.#summaryStyle) return this.#styledSummary(record, role);
    return this.#memo.rememberByObjects(record, role === 'user' ? USER_ROLE : ASSISTANT_ROLE, () => {
      const text = this.#cache.recordText(record, () =>
        record.kind === 'summarize' ? summaryText(record) : externalizationText(record),
      );
      return this.text(text, role);
    });
  }

  /**
   * An image or document artifact shown again for this turn (ADR-0310): an ephemeral user message with
   * a header line and the medium itself; null when the provider cannot take it inline.
   */
  rehydratedMedium(artifactId: string, mediaType: string, data: string): Piece | null {
    return this.#memo.remember<Piece | null>('synthetic', `medium\u0000${artifactId}`, () => {
      const source = { kind: 'base64' as const, data };
      const medium: ImagePart | DocumentPart = mediaType.startsWith('image/')
        ? { type: 'image', mediaType, source }
        : {
            type: 'document',
            mediaType,
            source,
            ...(this.#format.defaultDocumentTitle ? { title: this.#format.defaultDocumentTitle } : {}),
          };
      if (!this.#format.canSendMedia(medium)) return null;
      const text = rehydrationText(artifactId, `(${mediaType}, shown below)`, undefined);
      return this.#piece({ id: 'synthetic', role: 'user', content: [{ type: 'text', text }, medium] }, 0);
    });
  }

  /** Artifact content cut to `cap` tokens (artifacts are content-addressed: the id fixes the content). */
  truncated(artifactId: string, content: string, cap: number): Truncated {
    return this.#memo.remember('truncated', `${artifactId}\u0000${cap}\u0000${content.length}`, () =>
      truncateToTokens(content, cap, this.#tokenizer),
    );
  }

  /** The caller's system prompt, counted as a system message (0 when empty). */
  systemPrompt(text: string): number {
    if (text === '') return 0;
    return this.#memo.remember('system', text, () =>
      this.#tokenizer.countMessage(
        { id: 'system', role: 'system', content: [{ type: 'text', text }] },
        this.#provider,
      ),
    );
  }

  /** Any synthetic text message. */
  text(text: string, role: 'user' | 'assistant'): Piece {
    return this.#memo.remember('synthetic', `${role}\u0000${text}`, () =>
      this.#piece({ id: 'synthetic', role, content: [{ type: 'text', text }] }, 0),
    );
  }

  /**
   * A summary in the thread's own style (ADR-0185): its format's text, as one message or a
   * [user shadow, assistant summary] pair (one piece of two wire messages). A user-led style opens the
   * conversation as it is; an assistant one takes the role asked for, as the default does.
   */
  #styledSummary(record: SummarizationRecord, role: 'user' | 'assistant'): Piece {
    const policy = this.#summaryStyle!;
    const shadow = policy.mode.kind === 'recursive-summarization' ? policy.mode.shadowPrompt : undefined;
    return this.#memo.rememberByObjects(record, role === 'user' ? USER_ROLE : ASSISTANT_ROLE, () => {
      const messages = summaryMessages(record, policy.summaryStyle, shadow);
      const pieces = messages.map((message) =>
        this.text(message.text, messages.length === 1 && message.role === 'assistant' ? role : message.role),
      );
      if (pieces.length === 1) return pieces[0]!;
      return {
        tokens: pieces.reduce((total, piece) => total + piece.tokens, 0),
        wire: pieces.flatMap((piece) => piece.wire),
        role: pieces[0]!.role,
        seq: 0,
      };
    });
  }

  #textResult(key: string, part: ToolResultPart, exchange: ToolExchange, text: string): Piece {
    return this.#memo.remember('text-result', key, () => this.#resultPiece(part, exchange, text, 0));
  }

  /** `asLogged`: the result's own content, sent with its media (ADR-0311); otherwise a stand-in without them. */
  #resultPiece(
    part: ToolResultPart,
    exchange: ToolExchange,
    content: ToolResultPart['content'],
    seq: number,
    asLogged = false,
  ): Piece {
    const prepared = prepareResult(part, exchange.providerId, content, asLogged ? this.#format : undefined);
    const sent = prepared.content[0] as ToolResultPart;
    // Media a provider's tool result cannot hold follow the results in a user message (ADR-0311).
    const followUp = this.#format.formatResultMedia?.(sent);
    return {
      tokens: this.#tokenizer.countMessage(prepared, this.#provider),
      wire:
        followUp === undefined
          ? [this.#format.formatResult(sent)]
          : [this.#format.formatResult(sent), followUp],
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
