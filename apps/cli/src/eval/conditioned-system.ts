import type { ProviderName, Thread, ThreadMessage } from '@compactor/core';
import type { ProviderTokenizer } from '@compactor/tokenizer';

/**
 * A system under the question-conditioned evals: it compacts a conversation's history once
 * (`prepare`), then answers each new user turn appended to that compacted state (`ask`). Compacting
 * once per budget and appending each question, rather than recompacting per question, keeps a
 * 2,000-question run to minutes; the question is the newest turn of the rendered request either way.
 */
export interface ConditionedSystem {
  name: string;
  source: string;
  prepare(context: PrepareContext): Promise<PreparedSystem>;
}

export interface PrepareContext {
  /** The history, folded (the question is not in it). */
  thread: Thread;
  /** Tokens the request may use in all. */
  ceiling: number;
  provider: ProviderName;
  tokenizer: ProviderTokenizer;
  /** Tokens to leave free for the newest turn (the longest question asked). */
  questionReserve: number;
}

export interface PreparedSystem {
  ask(question: ThreadMessage): AskedRequest;
}

/** One rendered request and what went into it (every figure the run reports). */
export interface AskedRequest {
  request: unknown;
  /** Our renderer's total, or the baseline's own count; the independent count is taken by the caller. */
  tokens: number;
  /** Artifact ids in the request and the message ids each holds (our externalizations). */
  artifacts: ReadonlyMap<string, ReadonlySet<string>>;
  /** Tokens of summary text in the request, and the summary's budget when the system has one. */
  summaryTokens: number;
  summaryBudget: number | null;
  /** Tokens of recalled or rehydrated text added for this turn. */
  recallTokens: number;
  emergency: EmergencyFigures | null;
}

/** What our renderer's emergency fit did to one request. */
export interface EmergencyFigures {
  overBy: number;
  tokensFreed: number;
  droppedMessages: number;
  droppedSummaries: number;
  droppedSummaryTokens: number;
  /** Summaries cut to their guaranteed items instead of dropped (ADR-0142), and the items that went. */
  trimmedSummaries: number;
  trimmedSummaryItems: number;
  droppedExternalizations: number;
  clearedResults: number;
  truncatedResults: number;
}

/** The question as the newest user turn of `thread`. */
export function questionMessage(thread: Thread, id: string, text: string): ThreadMessage {
  const last = thread.messages.at(-1);
  return {
    id,
    role: 'user',
    content: [{ type: 'text', text }],
    seq: thread.version + 1,
    index: thread.messages.length,
    turn: (last?.turn ?? 0) + 1,
    ...(last?.createdAt ? { createdAt: last.createdAt } : {}),
  };
}

/** `thread` with `messages` (re-indexed) and the question appended. */
export function withMessages(
  thread: Thread,
  messages: readonly ThreadMessage[],
  question: ThreadMessage,
): Thread {
  const all = [...messages, question].map((message, index) => ({ ...message, index }));
  return { ...thread, version: Math.max(thread.version, question.seq), messages: all };
}
