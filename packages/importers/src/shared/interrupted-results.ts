import type { CallRecord, RepairCounts, Working } from './finalize-types.js';
import type { IdAllocator } from './ids.js';

/** The content of the failure result added for a call whose result the transcript lacks. */
export const interruptedResultText =
  '[no result recorded: the tool call was interrupted or the transcript ended before it returned]';

/** Answer every unanswered call with a failure, after the results that follow its message. */
export function addInterruptedResults(
  messages: Working[],
  calls: Map<string, CallRecord>,
  ids: IdAllocator,
  warnings: string[],
  repairs: RepairCounts,
): Working[] {
  const danglingByMessage = new Map<string, CallRecord[]>();
  for (const call of calls.values()) {
    if (call.answered) continue;
    const list = danglingByMessage.get(call.messageId) ?? [];
    list.push(call);
    danglingByMessage.set(call.messageId, list);
  }
  if (danglingByMessage.size === 0) return messages;
  const output: Working[] = [];
  let pending: CallRecord[] = [];
  const flush = () => {
    for (const call of pending) {
      const id = ids.allocate(`${call.messageId}-interrupted`);
      call.answered = true;
      repairs.danglingCallsRepaired += 1;
      warnings.push(
        `call ${call.id} (${call.name}) in ${call.messageId} has no result: added interrupted failure result ${id}`,
      );
      output.push({
        id,
        role: 'tool',
        synthetic: true,
        ...(call.subagentId === undefined ? {} : { subagentId: call.subagentId }),
        ...(call.createdAt === undefined ? {} : { createdAt: call.createdAt }),
        metadata: { repair: 'interrupted-call' },
        content: [
          { type: 'tool_result', toolCallId: call.id, outcome: 'failure', content: interruptedResultText },
        ],
      });
    }
    pending = [];
  };
  for (const message of messages) {
    // Repairs go after the results that directly follow the calling message.
    if (pending.length > 0 && message.role !== 'tool') flush();
    output.push(message);
    const dangling = danglingByMessage.get(message.id);
    if (dangling) pending.push(...dangling);
  }
  flush();
  return output;
}
