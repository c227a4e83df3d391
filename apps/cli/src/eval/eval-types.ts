import type { TranscriptFormat } from '@compactor/importers';
import type { CacheCeiling, EqualTokenFigures } from './cache-replay.js';
import type { EmergencyFigures } from './conditioned-system.js';
import type { NeedleRun } from './needle-rounds.js';
import type { CacheFigures } from './prompt-cache.js';
import type { QaTally, UsageFigures } from './qa-tally.js';
import type { QaRun } from './question-conditioned.js';

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

/** retained / total for one group of probes; `total` 0 means nothing to measure. */
export interface RetentionCount {
  retained: number;
  total: number;
}

/** Coding-session probes (final state from the log, pi's own summaries): overall and per kind. */
export interface ProbeRetention {
  overall: RetentionCount;
  byKind: Record<string, RetentionCount>;
}

/** The metrics of one system on one transcript in one context window. */
export interface RunMetrics {
  system: string;
  transcript: string;
  kind: TranscriptKind;
  /** The context window of this run (ADR-0082); `ceiling` is what a request may take of it. */
  window: number;
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
  /** Ours: what the final render's emergency fit did (null: it did not run), summary size vs its budget. */
  emergency?: EmergencyFigures | null;
  summaryTokens?: number;
  summaryBudget?: number | null;
  rehydrationTokens?: number;
  /** Ours only. */
  summarizerCalls?: number;
  summarizerCostUsd?: number;
  compactions?: number;
  /**
   * The prompt cache over the whole replay: a request before every assistant message, each compared
   * with the one before (ADR-0140). Absent when the run was made with the cache replay off.
   */
  cache?: CacheFigures;
  /**
   * Ours: the sliding window replayed at the ceiling whose mean request matches ours (ADR-0275), so
   * a cached share is compared at equal token use as well as at the same window.
   */
  cacheAtOurTokens?: EqualTokenFigures & { system: string };
  /** Ours: the best cached share any system could reach on this replay, and the cost floor (ADR-0315). */
  cacheCeiling?: CacheCeiling;
  /**
   * A run on a conversation with QA items (LoCoMo) that measured the cache: every question asked of
   * this system at this run's ceiling (compacted once, then each question appended, as the
   * question-conditioned part does), so the cache figures have their retention beside them (ADR-0365).
   */
  questions?: WindowQuestions;
  error?: string;
}

/** The QA items of a run's conversation asked at the run's ceiling: strict evidence and answers. */
export interface WindowQuestions {
  overall: QaTally;
  /** Every evidence turn in the first half of the conversation's messages / the rest. */
  early: QaTally;
  late: QaTally;
  /** Mean request tokens of the questions' requests. */
  meanTokens: number;
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
  /** Mean request tokens ÷ ceiling over the runs. */
  fill: number;
  /** Summed over the runs (ours: the whole replay, import and every compaction included). */
  elapsedMs: number;
  /**
   * Prompt cache over the runs that measured it: mean of the runs' cached shares, tokens and
   * estimated costs summed. Null when no run measured it.
   */
  cache: CacheSummary | null;
}

/** {@link CacheFigures} over several runs. */
export interface CacheSummary {
  runs: number;
  /** Mean of the runs' `cachedShare`. */
  cachedShare: number;
  inputTokens: number;
  uncachedTokens: number;
  commits: number;
  emergencyFits: number;
  costUsd: number;
  openAiCostUsd: number;
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
  /** Question-conditioned LoCoMo: one run per system, conversation and text-compression ratio. */
  qa: QaRun[];
  /** Per system and ratio, summed over conversations. */
  qaSummary: QaSummaryRow[];
  qaOptions: { captions: boolean; ratios: number[] };
  /** Planted needles through 10 chained compactions. */
  needles: NeedleRun[];
  needleSummary: NeedleSummaryRow[];
  needleSeed: number;
}

export interface QaSummaryRow {
  system: string;
  ratio: number;
  overall: QaTally;
  early: QaTally;
  late: QaTally;
  byCategory: Record<string, QaTally>;
  usage: UsageFigures;
}

export interface NeedleSummaryRow {
  system: string;
  ceiling: number;
  /** Summed over rounds and transcripts (each round's check counts once). */
  instructions: RetentionCount;
  facts: RetentionCount;
  /** Needles kept in every round / planted. */
  keptEveryRound: RetentionCount;
  /** Over the neutral-turn renders of every round: emergency fits, whole summaries dropped, summaries over budget. */
  renders: number;
  emergencyFits: number;
  droppedSummaries: number;
  summaryOverBudget: number;
  meanRequestTokens: number;
  /** Per transcript kind: instructions and facts. */
  byKind: Record<string, { instructions: RetentionCount; facts: RetentionCount }>;
}
