import type { TranscriptFormat } from '@compactor/importers';

/** Transcripts are grouped by their format; the coding agents' sessions get the larger budgets. */
export type TranscriptKind = TranscriptFormat;
const codingKinds: ReadonlySet<TranscriptKind> = new Set(['pi', 'claude-code', 'swe-agent']);

export function isCodingKind(kind: TranscriptKind): boolean {
  return codingKinds.has(kind);
}

export const defaultChatBudgets = [8_000, 16_000, 32_000, 64_000];
export const defaultCodingBudgets = [32_000, 64_000, 128_000];

/** One transcript of the evaluation set: a file and, for multi-conversation files, which conversation. */
export interface EvalTranscript {
  kind: TranscriptKind;
  file: string;
  /** 0-based conversation index. */
  conversation: number;
  /** Short stable name for tables (`locomo#3`, `pi/session`). */
  label: string;
}

/** retained / compacted for one group of probes; `compacted` 0 means nothing to measure. */
export interface RetentionCount {
  retained: number;
  compacted: number;
}

export interface ProbeRetention {
  overall: RetentionCount;
  /** LoCoMo probes whose evidence lies in the first half of the conversation. */
  early: RetentionCount;
}

/** The metrics of one system on one transcript at one budget. */
export interface RunMetrics {
  system: string;
  transcript: string;
  kind: TranscriptKind;
  budget: number;
  /** The renderer's hard ceiling for our final render; the baselines get the same. */
  ceiling: number;
  /** The whole transcript rendered as one prompt. */
  transcriptTokens: number;
  /** The request counted independently with `countRequest`. */
  requestTokens: number;
  withinBudget: boolean;
  valid: boolean;
  validationErrors: string[];
  compressionRatio: number;
  retention: ProbeRetention;
  elapsedMs: number;
  /** Ours only. */
  summarizerCalls?: number;
  summarizerCostUsd?: number;
  compactions?: number;
  error?: string;
}

/** Pinned facts of round 1's summary still present after each chained compaction. */
export interface DriftResult {
  transcript: string;
  kind: TranscriptKind;
  pinnedFactsRound1: number;
  /** Index 0 = round 1. `null` when the round committed no summary. */
  presentPerRound: Array<number | null>;
  /** Pinned facts seen in any round's summaries. */
  pinnedFactsSeen: number;
  /** After each round: pinned facts seen in an earlier round and missing now. */
  lostPinnedPerRound: number[];
  summarizedRounds: number;
}

export interface SystemSummary {
  system: string;
  source: string;
  runs: number;
  withinBudget: number;
  valid: number;
  /** Geometric mean of the compression ratios. */
  compression: number;
  retention: RetentionCount;
  earlyRetention: RetentionCount;
  /** Summed over the runs (ours: the whole replay, import and every compaction included). */
  elapsedMs: number;
}

export interface EvaluationResult {
  startedAt: string;
  elapsedMs: number;
  corpusDir: string;
  transcripts: EvalTranscript[];
  skipped: string[];
  systems: Array<{ name: string; source: string }>;
  runs: RunMetrics[];
  drift: DriftResult[];
  /** Per kind, then `overall`. */
  summaries: Record<string, SystemSummary[]>;
  /** LoCoMo early-evidence retention at about 4× compression, per system. */
  locomoAtFourTimes: Record<string, RetentionCount>;
}
