import type { Compactor } from '@compactor/engine';
import { searchHistoryTool as definition, SEARCH_HISTORY_TOOL_NAME } from '@compactor/render';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { tool } from 'langchain';

export interface SearchHistoryToolOptions {
  compactor: Compactor;
  threadId: string;
}

/**
 * The `search_history` tool (ADR-0163) as a LangChain tool for `createAgent({ tools })`: it answers
 * the model's call from what the thread's current plan compacted (`compactor.searchHistory`).
 *
 * @param options - The compactor and the agent's thread.
 * @returns A LangChain tool named `search_history`.
 */
export function searchHistoryTool(options: SearchHistoryToolOptions): DynamicStructuredTool {
  // A JSON Schema (not zod) leaves `tool`'s return type a union; it is a structured tool.
  return tool(
    async (input: { query: string; top_k?: number }, config?: { toolCall?: { id?: string } }) => {
      const toolCallId = config?.toolCall?.id ?? 'search_history';
      const answer = await options.compactor.searchHistory(options.threadId, { toolCallId, input });
      return String(answer.result.content);
    },
    {
      name: SEARCH_HISTORY_TOOL_NAME,
      description: definition.description ?? '',
      schema: definition.inputSchema as Record<string, unknown>,
    },
  ) as unknown as DynamicStructuredTool;
}

export { SEARCH_HISTORY_TOOL_NAME };
