import {
  type CompactionPlan,
  normalizePlan,
  type RehydrationPolicy,
  type Thread,
  type ToolDefinition,
  type ToolResultPart,
} from '@compactor/core';
import { createRecallIndex } from '@compactor/recall';
import { compactedRecallDocuments, type RecalledMessage } from './render-recall.js';

/** The name of the tool that searches the compacted part of the conversation (ADR-0163). */
export const SEARCH_HISTORY_TOOL_NAME = 'search_history';

/** The tool a render offers (`addSearchHistoryTool`) when the plan has compacted something. */
export const searchHistoryTool: ToolDefinition = {
  name: SEARCH_HISTORY_TOOL_NAME,
  description:
    'Search the earlier part of this conversation that was compacted (summarized, dropped or cleared) ' +
    'and read the best-matching messages verbatim, with their turn. Use it when a summary or pointer ' +
    'mentions something whose exact words you need, or when asked about something said long ago.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to look for: names, identifiers, dates, topics.' },
      top_k: {
        type: 'integer',
        minimum: 1,
        maximum: 20,
        description: 'At most this many messages (default 5).',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
};

/** What {@link handleSearchHistory} searches and how much it may return. */
export interface SearchHistoryContext {
  /** The id of the model's search_history call, answered by the returned result. */
  toolCallId: string;
  thread: Thread;
  /** The plan the model's request was rendered under: only what it compacted is searched. */
  plan: CompactionPlan | null;
  /**
   * Which sensitivities of tool output may come back (the same rule as render-time recall).
   * @defaultValue the thread policy's `rehydration.autoRehydrateSensitivities`
   */
  rehydration?: Pick<RehydrationPolicy, 'autoRehydrateSensitivities'>;
  /** Counts a hit's text (the result stays within `maxTokens`); characters / 4 when absent. */
  countText?: (text: string) => number;
  /**
   * The result's messages together stay within this many tokens.
   * @defaultValue 2000
   */
  maxTokens?: number;
  /**
   * Hits when the call names no `top_k`.
   * @defaultValue 5
   */
  topK?: number;
}

/** A search_history call's answer, and what it found (for a report or an audit). */
export interface SearchHistoryOutcome {
  /** Append it to the log in a tool message: it answers the call like any tool result. */
  result: ToolResultPart;
  hits: RecalledMessage[];
}

/**
 * The handler of a `search_history` call (ADR-0163): BM25 over the messages the plan compacted,
 * under the same sensitivity rule as render-time recall (tool output that is not auto-rehydratable
 * never comes back). Pure and deterministic; the result is ephemeral (a later round may clear it).
 *
 * @param input - The call's input, expected as `{ query: string, top_k?: number }`.
 * @param context - The thread, its plan and the limits.
 * @returns A tool result: the hits in log order, or a failure result for bad input (never a throw).
 */
export function handleSearchHistory(input: unknown, context: SearchHistoryContext): SearchHistoryOutcome {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const query = typeof fields.query === 'string' ? fields.query.trim().slice(0, 600) : '';
  const requested =
    typeof fields.top_k === 'number' && Number.isInteger(fields.top_k) ? fields.top_k : undefined;
  const topK = Math.max(1, Math.min(20, requested ?? context.topK ?? 5));
  const answer = (outcome: ToolResultPart['outcome'], content: string, hits: RecalledMessage[]) => ({
    result: {
      type: 'tool_result' as const,
      toolName: SEARCH_HISTORY_TOOL_NAME,
      toolCallId: context.toolCallId,
      outcome,
      content,
      keyFields: query === '' ? {} : { query },
      durability: 'ephemeral' as const,
    },
    hits,
  });
  if (query === '') return answer('failure', 'search_history needs {"query": string}.', []);
  if (!context.plan) return answer('success', 'Nothing in this conversation has been compacted yet.', []);
  const allowed = new Set<string>(
    (context.rehydration ?? context.thread.policy.rehydration).autoRehydrateSensitivities,
  );
  const documents = compactedRecallDocuments(context.thread, normalizePlan(context.plan), allowed);
  const index = createRecallIndex({ maxCharsPerDocument: 4000 });
  index.add(documents);
  const kinds = new Map(documents.map((document) => [document.id, document.compactedBy]));
  const countText = context.countText ?? ((text: string) => Math.ceil(text.length / 4));
  const found = index.search({ query, topK, maxTokens: context.maxTokens ?? 2000, countTokens: countText });
  if (found.hits.length === 0) return answer('success', `No compacted message matches "${query}".`, []);
  const ordered = [...found.hits].sort((left, right) => left.seq - right.seq);
  const hits = ordered.map((hit) => ({
    messageId: hit.id,
    turn: hit.turn,
    score: Math.round(hit.score * 1000) / 1000,
    compactedBy: kinds.get(hit.id)!,
  }));
  const lines = ordered.map((hit) => `(turn ${hit.turn ?? '?'}) ${hit.text}`);
  return answer(
    'success',
    `[search_history: ${hits.length} of ${found.matched} matching compacted messages, in order]\n${lines.join('\n')}`,
    hits,
  );
}
