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
/** One of {@link transcriptFormats}. */
export type TranscriptFormat = (typeof transcriptFormats)[number];

/** A transcript to import, already read into memory. */
export interface TranscriptInput {
  /** The transcript's contents. */
  text: string;
  /** Used for format detection hints and the default thread id. */
  fileName?: string;
  /**
   * Claude Code subagent transcripts (`<session>/subagents/agent-<id>.jsonl`), already read.
   * `importTranscriptFile` fills this in; `importTranscript` never touches the file system.
   */
  subagents?: SubagentTranscript[];
}

/** One Claude Code subagent's transcript. */
export interface SubagentTranscript {
  /** The agent id (`a9cad17` for `agent-a9cad17.jsonl`). */
  agentId: string;
  text: string;
}

/** Which conversation to import, and what the imported thread is called and sized as. */
export interface ImportOptions {
  /** @defaultValue `'auto'` (detected) */
  format?: TranscriptFormat | 'auto';
  /**
   * 0-based index of the conversation to import from multi-conversation files.
   * @defaultValue 0
   */
  conversation?: number;
  /** @defaultValue `<format>-<file name>-<content hash>-<conversation>`, the same for the same file */
  threadId?: string;
  tenantId?: string;
  /** Overrides the model named by the transcript (or the format's default). */
  model?: string;
  /**
   * The model registry lives in the tokenizer package, not here.
   * @defaultValue 200000
   */
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

/** What an import read, kept, repaired and skipped: the figures a reviewer checks an importer by. */
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

/** One imported conversation: its events and what the import found on the way. */
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

/** One conversation of a transcript, as listed before importing it. */
export interface ConversationSummary {
  index: number;
  id: string | undefined;
  /** A short label (first words of the task, session start time, ...). */
  title: string | undefined;
}
