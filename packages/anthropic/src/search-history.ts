import type { Anthropic } from '@anthropic-ai/sdk';
import type { Compactor } from '@compactor/engine';
import { SEARCH_HISTORY_TOOL_NAME } from '@compactor/render';

/**
 * Answer a `search_history` tool_use block (ADR-0163) from what the thread's current plan compacted:
 * send the returned block back in the next user message, as for any tool. Offer the tool with
 * `withCompaction(client, { searchHistory: true })`.
 *
 * @param compactor - The compactor behind `withCompaction`.
 * @param threadId - The conversation's thread.
 * @param toolUse - The model's `search_history` call.
 * @returns The `tool_result` block answering it (`is_error` for a malformed call).
 */
export async function answerSearchHistory(
  compactor: Compactor,
  threadId: string,
  toolUse: Pick<Anthropic.Messages.ToolUseBlock, 'id' | 'input'>,
): Promise<Anthropic.Messages.ToolResultBlockParam> {
  const answer = await compactor.searchHistory(threadId, { toolCallId: toolUse.id, input: toolUse.input });
  return {
    type: 'tool_result',
    tool_use_id: toolUse.id,
    content: String(answer.result.content),
    ...(answer.result.outcome === 'failure' ? { is_error: true } : {}),
  };
}

export { SEARCH_HISTORY_TOOL_NAME };
