import type { ContentPart, Message, ToolResultPart } from '@compactor/core';
import type { DraftMessage, DraftPart, DraftToolResult } from './draft.js';
import type { CallRecord, RepairCounts, Working } from './finalize-types.js';
import { IdAllocator } from './ids.js';
import { addInterruptedResults } from './interrupted-results.js';
import { pairToolCalls } from './tool-call-pairing.js';
import { defaultToolDurability, pathKeyField } from './tool-durability.js';
import { attachToolImages } from './tool-images.js';

export type { RepairCounts } from './finalize-types.js';
export { interruptedResultText } from './interrupted-results.js';

export interface FinalizedMessages {
  messages: Message[];
  warnings: string[];
  repairs: RepairCounts;
}

/**
 * Turn adapter drafts into canonical messages, with every tool call paired with exactly one
 * result after it:
 * - a result whose call is not earlier in the thread is dropped (orphan);
 * - a second result for an already answered call is dropped (duplicate);
 * - a call id reused by a later call is renamed (`id.2`) and later results follow the rename;
 * - a call left without a result gets a synthetic `failure` result, placed after the results
 *   that follow its message (so parallel results stay together);
 * - images returned by tools travel in a synthetic user message after the run of results,
 *   because a `tool` message carries only its envelope.
 * Empty text parts and messages left without content are dropped. Ids are made unique.
 */
export function finalizeMessages(drafts: readonly DraftMessage[]): FinalizedMessages {
  const warnings: string[] = [];
  const repairs: RepairCounts = {
    emptyMessagesDropped: 0,
    orphanResultsDropped: 0,
    duplicateResultsDropped: 0,
    danglingCallsRepaired: 0,
    duplicateCallIdsRenamed: 0,
  };
  const ids = new IdAllocator();
  const working: Working[] = [];
  for (const draft of drafts) {
    const content = draft.content.filter(keepPart);
    const id = ids.allocate(draft.id);
    if (content.length === 0) {
      repairs.emptyMessagesDropped += 1;
      const stopReason = draft.metadata?.stopReason;
      const why = typeof stopReason === 'string' ? ` (stop reason: ${stopReason})` : '';
      warnings.push(`dropped empty ${draft.role} message ${id}${why}`);
      continue;
    }
    working.push({ ...draft, id, content });
  }

  const paired = pairToolCalls(working, warnings, repairs);
  const repaired = addInterruptedResults(paired.messages, paired.calls, ids, warnings, repairs);
  const withImages = attachToolImages(repaired, ids);
  const messages = withImages.map((message) => toMessage(message, paired.calls));
  return { messages, warnings, repairs };
}

function keepPart(part: DraftPart): boolean {
  if (part.type === 'text') return part.text !== '';
  if (part.type === 'reasoning') return part.text !== '' || part.signature !== undefined;
  return true;
}

function toMessage(message: Working, calls: Map<string, CallRecord>): Message {
  const content: ContentPart[] = message.content.map((part) => {
    if (part.type !== 'tool_result') return part;
    return toResultPart(part, calls.get(part.toolCallId), message.createdAt);
  });
  const result: Message = { id: message.id, role: message.role, content };
  if (message.synthetic) result.synthetic = true;
  if (message.subagentId !== undefined) result.subagentId = message.subagentId;
  if (message.createdAt !== undefined) result.createdAt = message.createdAt;
  if (message.metadata !== undefined && Object.keys(message.metadata).length > 0) {
    result.metadata = message.metadata;
  }
  return result;
}

function toResultPart(
  draft: DraftToolResult,
  call: CallRecord | undefined,
  resultCreatedAt: string | undefined,
): ToolResultPart {
  const toolName = call?.name || draft.toolName || 'unknown';
  const imageCount = draft.images?.length ?? 0;
  let content = draft.content;
  if (imageCount > 0 && content === '') content = `[${imageCount} image(s), attached in the next message]`;
  const part: ToolResultPart = {
    type: 'tool_result',
    toolName,
    toolCallId: draft.toolCallId,
    outcome: draft.outcome,
    content,
    keyFields: draft.keyFields ?? pathKeyField(call?.input),
  };
  const durability = defaultToolDurability(toolName);
  if (durability) part.durability = durability;
  const startedAt = draft.startedAt ?? call?.createdAt;
  const completedAt = draft.completedAt ?? resultCreatedAt;
  if (startedAt !== undefined) part.startedAt = startedAt;
  if (completedAt !== undefined) part.completedAt = completedAt;
  return part;
}
