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

/** Where a branched thread came from. */
export interface ThreadBranchOrigin {
  sourceThreadId: string;
  fromMessageId: string;
  sourceVersion: number;
}

/** A thread folded from its events: its settings and its messages in order. */
export interface Thread {
  id: string;
  tenantId: string;
  model: string;
  contextWindow: number;
  maxOutputTokens: number | undefined;
  /** The tokenizer family named at creation for a model the registry may not know (see `tokenizerFamilyOf`). */
  tokenizerFamily?: string;
  policy: CompactionPolicy;
  createdAt: string;
  /** Sequence number of the last event folded in. */
  version: number;
  messages: ThreadMessage[];
  branchedFrom: ThreadBranchOrigin | undefined;
}

/**
 * Where `thread.created` carries the tokenizer family its creator named: the event has no field for
 * it, so it travels in the event's metadata under this key.
 */
export const TOKENIZER_FAMILY_METADATA_KEY = 'tokenizerFamily';

/**
 * The tokenizer family a `thread.created` event's metadata names.
 *
 * @param created - The event (or anything with its metadata).
 * @returns The family, or undefined when none is named.
 */
export function tokenizerFamilyOf(created: {
  metadata?: Record<string, unknown> | undefined;
}): string | undefined {
  const family = created.metadata?.[TOKENIZER_FAMILY_METADATA_KEY];
  return typeof family === 'string' ? family : undefined;
}

/**
 * A turn starts at a real, root-level user message (ADR-0012).
 *
 * @param message - The message's role, synthetic flag and subagent.
 * @returns True for a non-synthetic user message of the root agent.
 */
export function isTurnStart(message: Pick<Message, 'role' | 'synthetic' | 'subagentId'>): boolean {
  return message.role === 'user' && message.synthetic !== true && message.subagentId === undefined;
}

/**
 * Whether a message was injected by a harness (reminders, imported summaries), not said by a person or the model.
 *
 * @param message - The message's synthetic flag.
 * @returns True when it is set.
 */
export function isSynthetic(message: Pick<Message, 'synthetic'>): boolean {
  return message.synthetic === true;
}
