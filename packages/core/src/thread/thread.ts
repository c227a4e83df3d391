import type { Message } from '../schemas/message.js';
import type { CompactionPolicy } from '../schemas/policy.js';

/** A message as it stands in a folded thread: its log position and the turn it belongs to. */
export type ThreadMessage = Message & {
  /** Sequence number of the event that appended it. */
  seq: number;
  /** Position among the thread's messages (0-based). */
  index: number;
  /** 0 for the preamble before the first real user message, then 1, 2, ... */
  turn: number;
};

export interface ThreadBranchOrigin {
  sourceThreadId: string;
  fromMessageId: string;
  sourceVersion: number;
}

export interface Thread {
  id: string;
  tenantId: string;
  model: string;
  contextWindow: number;
  maxOutputTokens: number | undefined;
  policy: CompactionPolicy;
  createdAt: string;
  /** Sequence number of the last event folded in. */
  version: number;
  messages: ThreadMessage[];
  branchedFrom: ThreadBranchOrigin | undefined;
}

/** A turn starts at a real, root-level user message (seed 004's TurnCountTrigger rule). */
export function isTurnStart(message: Pick<Message, 'role' | 'synthetic' | 'subagentId'>): boolean {
  return message.role === 'user' && message.synthetic !== true && message.subagentId === undefined;
}

export function isSynthetic(message: Pick<Message, 'synthetic'>): boolean {
  return message.synthetic === true;
}
