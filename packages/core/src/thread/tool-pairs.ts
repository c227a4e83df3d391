import type { ThreadMessage } from './thread.js';

/** A tool call and where its result is. */
export interface ToolPair {
  toolCallId: string;
  toolName: string;
  callMessageId: string;
  resultMessageId: string | undefined;
}

/** Every tool call of a thread with its result, and what is unpaired. */
export interface ToolPairIndex {
  byCallId: Map<string, ToolPair>;
  /** For each message id, the tool call ids it calls or answers. */
  callIdsByMessageId: Map<string, string[]>;
  /** Results whose call is not in the thread. */
  orphanResultCallIds: string[];
  /** Calls that have no result yet (pending, or the run was interrupted). */
  pendingCallIds: string[];
}

/**
 * Pair every tool call with its result, in one pass.
 *
 * @param messages - The thread's messages in order.
 * @returns The pairs, the calls and results of each message, orphan results and pending calls.
 */
export function buildToolPairIndex(messages: readonly ThreadMessage[]): ToolPairIndex {
  const byCallId = new Map<string, ToolPair>();
  const callIdsByMessageId = new Map<string, string[]>();
  const orphanResultCallIds: string[] = [];
  const remember = (messageId: string, callId: string) => {
    const ids = callIdsByMessageId.get(messageId);
    if (ids) ids.push(callId);
    else callIdsByMessageId.set(messageId, [callId]);
  };
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool_call') {
        byCallId.set(part.id, {
          toolCallId: part.id,
          toolName: part.name,
          callMessageId: message.id,
          resultMessageId: undefined,
        });
        remember(message.id, part.id);
      } else if (part.type === 'tool_result') {
        const pair = byCallId.get(part.toolCallId);
        if (pair && pair.resultMessageId === undefined) {
          pair.resultMessageId = message.id;
          remember(message.id, part.toolCallId);
        } else {
          orphanResultCallIds.push(part.toolCallId);
        }
      }
    }
  }
  const pendingCallIds = [...byCallId.values()]
    .filter((pair) => pair.resultMessageId === undefined)
    .map((pair) => pair.toolCallId);
  return { byCallId, callIdsByMessageId, orphanResultCallIds, pendingCallIds };
}

/**
 * The ids of every message that must travel with `messageIds` so no call or result is left
 * alone: the closure of the set under "calls/answers the same tool call".
 *
 * @param messageIds - The starting set.
 * @param index - The thread's tool pairs.
 * @returns The starting ids and every partner, transitively.
 */
export function closeOverToolPairs(messageIds: Iterable<string>, index: ToolPairIndex): Set<string> {
  const closed = new Set(messageIds);
  const queue = [...closed];
  while (queue.length > 0) {
    const messageId = queue.pop()!;
    for (const callId of index.callIdsByMessageId.get(messageId) ?? []) {
      const pair = index.byCallId.get(callId);
      if (!pair) continue;
      for (const partner of [pair.callMessageId, pair.resultMessageId]) {
        if (partner !== undefined && !closed.has(partner)) {
          closed.add(partner);
          queue.push(partner);
        }
      }
    }
  }
  return closed;
}
