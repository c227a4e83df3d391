import { statSync } from 'node:fs';
import { defaultChatBudgets, defaultCodingBudgets, type EvalTranscript, isCodingKind } from './eval-types.js';

export const DEFAULT_QA_RATIOS = [2, 4, 8];
export const QUICK_QA_RATIOS = [4];
export const DEFAULT_NEEDLE_CEILINGS = [8_000, 16_000, 32_000];
export const QUICK_NEEDLE_CEILINGS = [16_000];
/** `--quick` budget runs: one context window per transcript kind. */
export const QUICK_CHAT_BUDGET = 16_000;
export const QUICK_CODING_BUDGET = 32_000;
/** A window every transcript's drift rounds fit, so only the forced rounds compact. */
export const DRIFT_WINDOW = 200_000;

export interface EvalScope {
  /** Every transcript at context windows (the "budget runs": each request within the ceiling). */
  budgetRuns: Array<{ transcript: EvalTranscript; windows: number[] }>;
  qaTranscripts: EvalTranscript[];
  qaRatios: number[];
  needleTranscripts: EvalTranscript[];
  needleCeilings: number[];
  driftRuns: Array<{ transcript: EvalTranscript; window: number }>;
  /** Progress steps: budget runs, QA runs, needle runs, drift runs. */
  steps: number;
}

export type EvalPart = 'budget' | 'qa' | 'needles' | 'drift';
export const EVAL_PARTS: readonly EvalPart[] = ['budget', 'qa', 'needles', 'drift'];

export interface ScopeOptions {
  quick: boolean;
  /** Run only these parts (default all). */
  parts?: readonly EvalPart[];
  /** Context windows of the budget runs (default per kind). */
  windows?: number[];
  qaRatios?: number[];
  needleCeilings?: number[];
  drift?: boolean | undefined;
  qa?: boolean | undefined;
  needles?: boolean | undefined;
}

/**
 * What each part of the evaluation runs on.
 * - Budget runs: every transcript in its kind's context windows (`--quick`: the smallest file of
 *   each kind in one window, 16k for chats and 32k for coding sessions).
 * - Question-conditioned: every LoCoMo conversation at 2×, 4× and 8× of its text (`--quick`: the
 *   first conversation at 4×).
 * - Needles: the smallest file of each kind (its first conversation) plus the second LoCoMo conversation, at ceilings 8k,
 *   16k and 32k (`--quick`: the first coding session and the first LoCoMo conversation at 16k).
 * - Drift: every coding session and the first transcript of each other kind (`--quick`: none).
 */
export function evalScope(transcripts: readonly EvalTranscript[], options: ScopeOptions): EvalScope {
  const quick = options.quick;
  const parts = new Set(options.parts ?? EVAL_PARTS);
  const firsts = firstOfEachKind(transcripts);
  const budgetRuns = (parts.has('budget') ? (quick ? smallestOfEachKind(transcripts) : transcripts) : []).map(
    (transcript) => ({
      transcript,
      windows:
        options.windows ??
        (quick
          ? [isCodingKind(transcript.kind) ? QUICK_CODING_BUDGET : QUICK_CHAT_BUDGET]
          : isCodingKind(transcript.kind)
            ? defaultCodingBudgets
            : defaultChatBudgets),
    }),
  );
  const locomo = transcripts.filter((transcript) => transcript.kind === 'locomo');
  const qaTranscripts = options.qa === false || !parts.has('qa') ? [] : quick ? locomo.slice(0, 1) : locomo;
  const qaRatios = options.qaRatios ?? (quick ? QUICK_QA_RATIOS : DEFAULT_QA_RATIOS);
  let needleTranscripts: EvalTranscript[] = [];
  if (options.needles !== false && parts.has('needles')) {
    if (quick) {
      const coding = transcripts.find((transcript) => isCodingKind(transcript.kind));
      needleTranscripts = [...(coding ? [coding] : []), ...locomo.slice(0, 1)];
      if (needleTranscripts.length === 0) needleTranscripts = transcripts.slice(0, 1);
    } else {
      needleTranscripts = [...smallestOfEachKind(transcripts), ...locomo.slice(1, 2)];
    }
  }
  const needleCeilings = options.needleCeilings ?? (quick ? QUICK_NEEDLE_CEILINGS : DEFAULT_NEEDLE_CEILINGS);
  const driftOn = (options.drift ?? !quick) && parts.has('drift');
  const driftRuns = driftOn
    ? transcripts
        .filter((transcript) => isCodingKind(transcript.kind) || firsts.includes(transcript))
        .map((transcript) => ({ transcript, window: DRIFT_WINDOW }))
    : [];
  return {
    budgetRuns,
    qaTranscripts,
    qaRatios,
    needleTranscripts,
    needleCeilings,
    driftRuns,
    steps:
      budgetRuns.reduce((sum, run) => sum + run.windows.length, 0) +
      qaTranscripts.length * qaRatios.length +
      needleTranscripts.length * needleCeilings.length +
      driftRuns.length,
  };
}

function smallestOfEachKind(transcripts: readonly EvalTranscript[]): EvalTranscript[] {
  const best = new Map<string, { transcript: EvalTranscript; size: number }>();
  for (const transcript of transcripts) {
    const size = statSync(transcript.file).size;
    const current = best.get(transcript.kind);
    if (!current || size < current.size) best.set(transcript.kind, { transcript, size });
  }
  return [...best.values()].map((entry) => entry.transcript);
}

function firstOfEachKind(transcripts: readonly EvalTranscript[]): EvalTranscript[] {
  const seen = new Set<string>();
  return transcripts.filter((transcript) => {
    if (seen.has(transcript.kind)) return false;
    seen.add(transcript.kind);
    return true;
  });
}
