import type { Message } from '@compactor/core';
import type { AdapterReport, DraftMessage } from '../shared/draft.js';
import type { TranscriptSource } from '../shared/transcript-source.js';
import type {
  ConversationSummary,
  PiCompaction,
  QaProbe,
  SubagentTranscript,
  TranscriptFormat,
} from '../types.js';

/** Probes an adapter can only resolve once the final message ids are known. */
export interface ResolvedProbes {
  probes?: QaProbe[];
  piCompactions?: PiCompaction[];
}

/** What a format adapter hands back for one conversation. */
export interface AdapterResult {
  drafts: DraftMessage[];
  report: AdapterReport;
  /** The model the transcript names, if any. */
  model: string | undefined;
  conversationCount: number;
  conversationId: string | undefined;
  /** Timestamp for `thread.created` when the source has one (session start). */
  startedAt: string | undefined;
  /** Small facts about the source for `thread.created` metadata (never transcript text). */
  threadMetadata: Record<string, unknown>;
  resolveProbes?: (messages: readonly Message[]) => ResolvedProbes;
}

export interface FormatAdapter {
  format: TranscriptFormat;
  /** The model assumed when the transcript does not name one. */
  defaultModel: string;
  /** Why the source is not in this format, or undefined when it looks like it is. */
  mismatch(source: TranscriptSource): string | undefined;
  listConversations(source: TranscriptSource): ConversationSummary[];
  /** `conversationIndex` is already checked against `listConversations`. */
  read(
    source: TranscriptSource,
    conversationIndex: number,
    subagents: readonly SubagentTranscript[],
  ): AdapterResult;
}
