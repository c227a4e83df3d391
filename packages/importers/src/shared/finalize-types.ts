import type { DraftMessage } from './draft.js';

export interface RepairCounts {
  emptyMessagesDropped: number;
  orphanResultsDropped: number;
  duplicateResultsDropped: number;
  danglingCallsRepaired: number;
  duplicateCallIdsRenamed: number;
}

export interface CallRecord {
  id: string;
  name: string;
  input: unknown;
  messageId: string;
  createdAt: string | undefined;
  subagentId: string | undefined;
  answered: boolean;
}

/** A draft after id allocation, while the finalize passes run. */
export type Working = DraftMessage;
