import type { EventInput, Message } from '@compactor/core';

/** Every transcript format the importers understand. */
export const transcriptFormats = [
  'pi',
  'claude-code',
  'swe-agent',
  'tau-bench',
  'aider',
  'locomo',
  'openai',
  'anthropic',
] as const;
export type TranscriptFormat = (typeof transcriptFormats)[number];

export interface TranscriptInput {
  text: string;
  /** Used for format detection hints and the default thread id. */
  fileName?: string;
  /**
   * Claude Code subagent transcripts (`<session>/subagents/agent-<id>.jsonl`), already read.
   * `importTranscriptFile` fills this in; `importTranscript` never touches the file system.
   */
  subagents?: SubagentTranscript[];
}

export interface SubagentTranscript {
  /** The agent id (`a9cad17` for `agent-a9cad17.jsonl`). */
  agentId: string;
  text: string;
}

export interface ImportOptions {
  format?: TranscriptFormat | 'auto';
  /** 0-based index of the conversation to import from multi-conversation files (default 0). */
  conversation?: number;
  threadId?: string;
  tenantId?: string;
  /** Overrides the model named by the transcript (or the format's default). */
  model?: string;
  /** Default 200000: the model registry lives in the tokenizer package, not here. */
  contextWindow?: number;
}

/** A LoCoMo QA item: the answer must stay recoverable from the rendered prompt. */
export interface QaProbe {
  id: string;
  question: string;
  /** Absent for adversarial (category 5) items, which have only `adversarialAnswer`. */
  answer?: string;
  adversarialAnswer?: string;
  /** Dialogue ids (`D1:3`) holding the answer, normalized (`D30:05` → `D30:5`). */
  evidence: string[];
  /** The message ids of the evidence turns found in the thread. */
  evidenceMessageIds: string[];
  category: number;
}

/** A compaction the pi agent itself performed: a ready-made probe, not a message. */
export interface PiCompaction {
  /** The last message before the compaction record (the point where it happened). */
  atMessageId: string | undefined;
  summary: string;
  tokensBefore: number | undefined;
  /** Index of the first kept entry among the session's records (older pi sessions). */
  firstKeptEntryIndex: number | undefined;
  /** Id of the first kept entry (newer, tree-shaped pi sessions). */
  firstKeptEntryId: string | undefined;
  /** The first message at or after the first kept entry, when there is one. */
  firstKeptMessageId: string | undefined;
  timestamp: string | undefined;
}

export interface ImportStats {
  /** Records (JSONL records, history entries, markdown blocks, dialogue turns) read from the source. */
  sourceRecords: number;
  /** User-role records of the source that carry more than tool results, before any classification. */
  sourceUserRecords: number;
  /** Tool calls as written in the source, before de-duplication. */
  sourceToolCalls: number;
  /** Records that produce no message, by kind (e.g. `progress`, `model_change`). */
  skippedRecords: Record<string, number>;
  messages: number;
  messagesByRole: Record<Message['role'], number>;
  /** Real, root-level user messages (core's `isTurnStart`). */
  userTurns: number;
  syntheticMessages: number;
  subagentMessages: number;
  toolCalls: number;
  toolResults: number;
  images: number;
  reasoningParts: number;
  /** Records that repeat earlier ones (Claude Code re-writes history on resume) and were skipped. */
  replayedRecords: number;
  orphanResultsDropped: number;
  duplicateResultsDropped: number;
  danglingCallsRepaired: number;
  duplicateCallIdsRenamed: number;
  emptyMessagesDropped: number;
  unparseableLines: number;
}

export interface ImportedTranscript {
  format: TranscriptFormat;
  conversationCount: number;
  conversationIndex: number;
  /** The source's own name for the conversation (LoCoMo sample id, tau-bench task id, ...). */
  conversationId: string | undefined;
  model: string;
  contextWindow: number;
  threadId: string;
  tenantId: string | undefined;
  /** `thread.created` first, then one `message.appended` per message, in order. */
  events: EventInput[];
  warnings: string[];
  stats: ImportStats;
  /** LoCoMo QA items. */
  probes?: QaProbe[];
  /** pi's own compaction records. */
  piCompactions?: PiCompaction[];
}

export interface ConversationSummary {
  index: number;
  id: string | undefined;
  /** A short label (first words of the task, session start time, ...). */
  title: string | undefined;
}
