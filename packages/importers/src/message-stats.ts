import { isTurnStart, type Message } from '@compactor/core';
import type { ImportStats } from './types.js';

type MessageStats = Pick<
  ImportStats,
  | 'messages'
  | 'messagesByRole'
  | 'userTurns'
  | 'syntheticMessages'
  | 'subagentMessages'
  | 'toolCalls'
  | 'toolResults'
  | 'images'
  | 'reasoningParts'
>;

/** Counts over the imported messages (what the thread holds, after repairs). */
export function messageStats(messages: readonly Message[]): MessageStats {
  const messagesByRole: Record<Message['role'], number> = { system: 0, user: 0, assistant: 0, tool: 0 };
  let userTurns = 0;
  let syntheticMessages = 0;
  let subagentMessages = 0;
  let toolCalls = 0;
  let toolResults = 0;
  let images = 0;
  let reasoningParts = 0;
  for (const message of messages) {
    messagesByRole[message.role] += 1;
    if (isTurnStart(message)) userTurns += 1;
    if (message.synthetic) syntheticMessages += 1;
    if (message.subagentId !== undefined) subagentMessages += 1;
    for (const part of message.content) {
      if (part.type === 'tool_call') toolCalls += 1;
      else if (part.type === 'tool_result') toolResults += 1;
      else if (part.type === 'image') images += 1;
      else if (part.type === 'reasoning') reasoningParts += 1;
    }
  }
  return {
    messages: messages.length,
    messagesByRole,
    userTurns,
    syntheticMessages,
    subagentMessages,
    toolCalls,
    toolResults,
    images,
    reasoningParts,
  };
}
