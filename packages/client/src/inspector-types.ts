/** Shapes of the routes behind the inspector page (ADR-0090); see apps/ingest/README.md. */

export interface ThreadRow {
  threadId: string;
  model: string;
  contextWindow: number;
  messageCount: number;
  version: number;
  tokens: { messages: number; now: number; ceiling: number };
  planVersion: number;
  lastCompaction: { planVersion: number; at: string } | null;
  autoCompact: boolean;
  status: 'ok' | 'pending' | 'failed';
  lastLifecycleEvent: { name: string; at: string } | null;
  branchedFrom: { sourceThreadId: string; fromMessageId: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface ThreadsPage {
  threads: ThreadRow[];
  nextCursor: string | null;
}

export interface ListThreadsOptions {
  limit?: number;
  cursor?: string;
  prefix?: string;
  branchedFrom?: string;
}

export interface LifecycleEventView {
  index: number;
  name: string;
  at: string;
  tokensBefore?: number;
  tokensAfter?: number;
  budgetLimit?: number;
  strategy?: string;
  spanMessageIds?: string[];
  tokensFreed?: number;
  details?: Record<string, unknown>;
}

export interface LifecyclePage {
  events: LifecycleEventView[];
  nextIndex: number | null;
  total: number;
}

export type PlanAction = 'include' | 'clear' | 'summarize' | 'externalize' | 'drop';

export interface PlanDiffView {
  threadId: string;
  version: number;
  previousVersion: number;
  changes: Array<{
    fromMessageId: string;
    toMessageId: string;
    messageIds: string[];
    messageCount: number;
    before: PlanAction;
    after: PlanAction;
  }>;
  changedMessages: number;
  compaction: LifecycleEventView | null;
}

/** The mutable policy fields; absent ones keep their value. */
export interface PolicyPatch {
  autoCompact?: boolean;
  softThresholdPercent?: number;
  keepRecentTurns?: number;
  keepRecentTokens?: number;
  outputReserveTokens?: number;
  safetyBufferTokens?: number;
  clearAtLeastTokens?: number;
  summaryBudgetTokens?: number;
  maxSummarizationRounds?: number;
}

export interface PolicyUpdateResult {
  threadId: string;
  version: number;
  policy: Record<string, unknown>;
}
