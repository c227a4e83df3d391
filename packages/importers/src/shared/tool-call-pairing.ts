import type { DraftToolResult } from './draft.js';
import type { CallRecord, RepairCounts, Working } from './finalize-types.js';

/**
 * Pair results with the calls before them: orphan and duplicate results are dropped, a reused
 * call id is renamed (`id.2`) and later results follow the rename.
 */
export function pairToolCalls(
  messages: Working[],
  warnings: string[],
  repairs: RepairCounts,
): { messages: Working[]; calls: Map<string, CallRecord> } {
  const calls = new Map<string, CallRecord>();
  /** Source call id → the id the most recent call with that source id now has. */
  const currentIdBySourceId = new Map<string, string>();
  const output: Working[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      const result = message.content[0] as DraftToolResult;
      const callId = currentIdBySourceId.get(result.toolCallId);
      const call = callId === undefined ? undefined : calls.get(callId);
      if (!call) {
        repairs.orphanResultsDropped += 1;
        warnings.push(
          `dropped tool result ${message.id} for call ${result.toolCallId}: no earlier call has that id`,
        );
        continue;
      }
      if (call.answered) {
        repairs.duplicateResultsDropped += 1;
        warnings.push(`dropped tool result ${message.id}: call ${result.toolCallId} already has a result`);
        continue;
      }
      call.answered = true;
      output.push({ ...message, content: [{ ...result, toolCallId: call.id }] });
      continue;
    }
    const content = message.content.map((part) => {
      if (part.type !== 'tool_call') return part;
      let id = part.id;
      if (calls.has(id)) {
        const renamed = uniqueCallId(part.id, calls);
        repairs.duplicateCallIdsRenamed += 1;
        warnings.push(`renamed tool call ${part.id} in ${message.id} to ${renamed}: the id was already used`);
        id = renamed;
      }
      calls.set(id, {
        id,
        name: part.name,
        input: part.input,
        messageId: message.id,
        createdAt: message.createdAt,
        subagentId: message.subagentId,
        answered: false,
      });
      currentIdBySourceId.set(part.id, id);
      return id === part.id ? part : { ...part, id };
    });
    output.push({ ...message, content });
  }
  return { messages: output, calls };
}

function uniqueCallId(id: string, calls: Map<string, CallRecord>): string {
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${id}.${suffix}`;
    if (!calls.has(candidate)) return candidate;
  }
}
