import type { Compactor } from '@compactor/engine';
import { searchHistoryTool as definition, SEARCH_HISTORY_TOOL_NAME } from '@compactor/render';
import { jsonSchema, tool } from 'ai';

export interface SearchHistoryToolOptions {
  compactor: Compactor;
  threadId: string;
}

/**
 * The `search_history` tool (ADR-0163) as an AI SDK tool: put it in `tools` as
 * `{ [SEARCH_HISTORY_TOOL_NAME]: searchHistoryTool({ compactor, threadId }) }`. Its `execute` answers
 * the model's call from what the thread's current plan compacted (`compactor.searchHistory`), so the
 * AI SDK's own tool loop runs it like any other tool.
 *
 * @param options - The compactor and the thread the model's conversation is.
 * @returns An AI SDK tool whose result is the matching compacted messages, verbatim, with their turn.
 */
export function searchHistoryTool(options: SearchHistoryToolOptions) {
  return tool({
    description: definition.description ?? '',
    inputSchema: jsonSchema<{ query: string; top_k?: number }>(
      definition.inputSchema as Parameters<typeof jsonSchema>[0],
    ),
    execute: async (input, { toolCallId }) => {
      const answer = await options.compactor.searchHistory(options.threadId, { toolCallId, input });
      return String(answer.result.content);
    },
  });
}

export { SEARCH_HISTORY_TOOL_NAME };
