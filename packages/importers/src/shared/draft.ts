import type { ContentPart, ImagePart, Message, ToolOutcome } from '@compactor/core';

/**
 * A tool result as a format adapter sees it: the tool name is filled in from the call when the
 * thread is finalized, and images (which a `tool` message cannot carry) travel separately.
 */
export interface DraftToolResult {
  type: 'tool_result';
  toolCallId: string;
  /** The name the source gives, used only when the call cannot tell. */
  toolName?: string;
  outcome: ToolOutcome;
  content: string | Record<string, unknown>;
  keyFields?: Record<string, unknown>;
  startedAt?: string;
  completedAt?: string;
  images?: ImagePart[];
}

export type DraftPart = Exclude<ContentPart, { type: 'tool_result' }> | DraftToolResult;

/** A message before id allocation, tool pairing and repairs. `id` is a base, made unique later. */
export interface DraftMessage {
  id: string;
  role: Message['role'];
  content: DraftPart[];
  synthetic?: boolean;
  subagentId?: string;
  createdAt?: string;
  metadata?: Record<string, unknown>;
}

/** Counters and warnings an adapter fills as it reads. */
export class AdapterReport {
  readonly warnings: string[] = [];
  readonly skippedRecords: Record<string, number> = {};
  sourceRecords = 0;
  sourceUserRecords = 0;
  sourceToolCalls = 0;
  replayedRecords = 0;
  unparseableLines = 0;

  warn(message: string): void {
    this.warnings.push(message);
  }

  skip(kind: string): void {
    this.skippedRecords[kind] = (this.skippedRecords[kind] ?? 0) + 1;
  }
}
