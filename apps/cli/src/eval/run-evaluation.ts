import { performance } from 'node:perf_hooks';
import {
  type CompactionPolicy,
  POLICY_PRESET_NAMES,
  type PolicyPresetName,
  type ProviderName,
  type Thread,
} from '@compactor/core';
import type { QaProbe } from '@compactor/importers';
import type { ProviderTokenizer } from '@compactor/tokenizer';
import { readPolicyOption } from '../commands/policy-option.js';
import { replayTranscript } from '../replay/replay-transcript.js';
import type { Baseline } from './baselines/baseline.js';
import { baselines as defaultBaselines } from './baselines/index.js';
import { slidingWindowBaseline } from './baselines/sliding-window-baseline.js';
import {
  baselineCacheFigures,
  type CacheSystem,
  cacheBaseline,
  cacheCeiling,
  cacheCodexRule,
  cacheWindowWithRecall,
  compactedRequest,
  equalTokenCacheFigures,
  oursCacheFigures,
} from './cache-replay.js';
import {
  conditionedBaseline,
  slidingWindowWithRecall,
  userMessagesVerbatim,
} from './conditioned-baselines.js';
import type { ConditionedSystem } from './conditioned-system.js';
import { measureDrift } from './drift.js';
import { type EvalPart, type EvalScope, evalScope } from './eval-scope.js';
import type {
  DriftResult,
  EvalTranscript,
  EvaluationResult,
  ProbeRetention,
  RunMetrics,
  WindowQuestions,
} from './eval-types.js';
import { runNeedles } from './needle-rounds.js';
import { emergencyFigures, OURS, oursConditioned, summaryAgainstBudget } from './ours-conditioned.js';
import { codingRetention } from './probe-retention.js';
import { finalStateProbes, piSummaryProbes } from './probes.js';
import { meanRequestTokens } from './prompt-cache.js';
import { conversationQuestions, runQuestionConditioned, scoreSystem } from './question-conditioned.js';
import { checkRequest, compressionRatio } from './request-checks.js';
import { requestText } from './request-text.js';
import { summarize, summarizeNeedles, summarizeQa } from './summarize-runs.js';
import { selectTranscripts } from './transcript-set.js';

export { OURS };

export interface EvaluationProgress {
  done: number;
  total: number;
  /** What just finished (`locomo#1 @ 8000`). */
  step: string;
}

export interface EvaluationOptions {
  corpusDir: string;
  /** Context windows for every transcript of the budget runs (ADR-0082); default per kind. */
  windows?: number[];
  /** A policy preset's name or a JSON policy file (partial), applied to our system. */
  policyFile?: string;
  /** The transcripts to run instead of the corpus selection. */
  transcripts?: EvalTranscript[];
  quick?: boolean;
  /** Default: the four baselines of `./baselines/index.ts`. */
  baselines?: Baseline[];
  /**
   * Policy presets (ADR-0106) run as rows of their own in the budget runs, beside ours and the
   * baselines (ADR-0181). Default: every preset.
   */
  presets?: readonly PolicyPresetName[];
  /** Chained-compaction drift (default true; `--quick` skips it). */
  drift?: boolean;
  /** Question-conditioned LoCoMo (default true when a LoCoMo transcript is selected). */
  qa?: boolean;
  /** Compression ratios of LoCoMo's text for the question-conditioned runs (default 2, 4, 8; quick 4). */
  qaRatios?: number[];
  /** Keep LoCoMo's images as URL images instead of their captions. */
  images?: boolean;
  /** Planted needles (default true). */
  needles?: boolean;
  needleCeilings?: number[];
  needleSeed?: number;
  /** Run only these parts (default all). */
  parts?: EvalPart[];
  /**
   * The prompt-cache replay of the budget runs: every system's request before every assistant
   * message, compared call to call (default true; ADR-0140).
   */
  cache?: boolean;
  onProgress?: (progress: EvaluationProgress) => void;
}

export const DEFAULT_NEEDLE_SEED = 12;

/** Budget runs, question-conditioned LoCoMo, planted needles and drift, measured side by side. */
export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const baselines = options.baselines ?? defaultBaselines;
  const presets = options.presets ?? POLICY_PRESET_NAMES;
  const policy = options.policyFile ? await readPolicy(options.policyFile) : undefined;
  const selection = options.transcripts
    ? { transcripts: options.transcripts, skipped: [] }
    : await selectTranscripts(options.corpusDir, { quick: options.quick ?? false });
  const scope: EvalScope = evalScope(selection.transcripts, {
    quick: options.quick ?? false,
    ...(options.windows ? { windows: options.windows } : {}),
    ...(options.qaRatios ? { qaRatios: options.qaRatios } : {}),
    ...(options.needleCeilings ? { needleCeilings: options.needleCeilings } : {}),
    drift: options.drift,
    qa: options.qa,
    needles: options.needles,
    ...(options.parts ? { parts: options.parts } : {}),
  });
  let done = 0;
  const progress = (step: string) => {
    done += 1;
    options.onProgress?.({ done, total: scope.steps, step });
  };
  const runs: RunMetrics[] = [];
  const measureCache = options.cache !== false;
  // Each with its question-conditioned form, asked at the run's ceiling on conversations with QA items.
  const extraSystems: ExtraSystem[] = [
    { cache: cacheWindowWithRecall(), asked: slidingWindowWithRecall() },
    { cache: cacheCodexRule(), asked: userMessagesVerbatim() },
  ];
  for (const { transcript, windows } of scope.budgetRuns) {
    for (const window of windows) {
      runs.push(
        ...(await evaluateInWindow(transcript, window, baselines, policy, presets, {
          cache: measureCache,
          extraSystems,
        })),
      );
      progress(`${transcript.label} @ ${window}`);
    }
  }
  const captions = options.images !== true;
  const qa = await runQuestionConditioned({
    transcripts: scope.qaTranscripts,
    ratios: scope.qaRatios,
    captions,
    ...(policy ? { policy } : {}),
    systems: [
      ...baselines.map((baseline) => conditionedBaseline(baseline)),
      slidingWindowWithRecall(),
      userMessagesVerbatim(),
    ],
    equalUse: [conditionedBaseline(slidingWindowBaseline), slidingWindowWithRecall()],
    onProgress: progress,
  });
  const needleSeed = options.needleSeed ?? DEFAULT_NEEDLE_SEED;
  const needleSystems: ConditionedSystem[] = [
    conditionedBaseline(slidingWindowBaseline),
    slidingWindowWithRecall(),
    userMessagesVerbatim(),
  ];
  const needles = await runNeedles({
    transcripts: scope.needleTranscripts,
    ceilings: scope.needleCeilings,
    seed: needleSeed,
    ...(policy ? { policy } : {}),
    systems: needleSystems,
    onProgress: progress,
  });
  const drift: DriftResult[] = [];
  for (const { transcript, window } of scope.driftRuns) {
    drift.push(await measureDrift(transcript, window));
    progress(`drift ${transcript.label}`);
  }
  const systems = [
    { name: OURS, source: '@compactor/engine (replayTranscript)' },
    ...presets.map((preset) => ({
      name: presetSystemName(preset),
      source: `@compactor/engine (replayTranscript), policy preset ${preset}`,
    })),
    ...baselines.map((baseline) => ({ name: baseline.name, source: baseline.source })),
    ...extraSystems.map(({ cache }) => ({ name: cache.name, source: cache.source })),
  ];
  return {
    startedAt,
    elapsedMs: Math.round(performance.now() - started),
    corpusDir: options.corpusDir,
    transcripts: selection.transcripts,
    skipped: selection.skipped,
    systems,
    runs,
    drift,
    summaries: summarize(runs, systems),
    qa,
    qaSummary: summarizeQa(qa),
    qaOptions: { captions, ratios: scope.qaRatios },
    needles,
    needleSummary: summarizeNeedles(needles),
    needleSeed,
  };
}

/** A preset's row name in the evaluation: `preset:seed-000`. */
export function presetSystemName(preset: PolicyPresetName): string {
  return `preset:${preset}`;
}

async function evaluateInWindow(
  transcript: EvalTranscript,
  window: number,
  baselines: readonly Baseline[],
  policy: Partial<CompactionPolicy> | undefined,
  presets: readonly PolicyPresetName[],
  options: { cache: boolean; extraSystems: readonly ExtraSystem[] },
): Promise<RunMetrics[]> {
  const replay = await replayTranscript({
    file: transcript.file,
    conversation: transcript.conversation,
    window,
    ...(policy ? { policy } : {}),
  });
  const { report, thread, tokenizer, imported } = replay;
  const provider = report.provider;
  const ceiling = report.ceiling > 0 ? report.ceiling : window;
  // LoCoMo is measured by its questions (question-conditioned runs); the rest by final-state probes.
  const probes = imported.probes
    ? []
    : [...finalStateProbes(thread), ...piSummaryProbes(thread, imported.piCompactions ?? [])];
  const retentionOf = (request: unknown): ProbeRetention => codingRetention(probes, requestText(request));
  const common = {
    transcript: transcript.label,
    kind: transcript.kind,
    window,
    ceiling,
    transcriptTokens: report.tokensBefore,
  };
  const cacheInput = { thread, ceiling, provider, tokenizer };
  const questionsOf = windowQuestions(imported.probes, options.cache, cacheInput);
  const results: RunMetrics[] = [
    {
      ...replayRun(OURS, replay, common, retentionOf, options.cache),
      ...(await questionsOf(oursConditioned(replay))),
    },
  ];
  // Each preset replays the transcript under its own policy, measured like ours (ADR-0181).
  for (const preset of presets) {
    const presetReplay = await replayTranscript({
      file: transcript.file,
      conversation: transcript.conversation,
      window,
      policy: { preset },
    });
    results.push({
      ...replayRun(presetSystemName(preset), presetReplay, common, retentionOf, options.cache),
      ...(await questionsOf(oursConditioned(presetReplay))),
    });
  }
  // The same denominator at equal token use (ADR-0275): the sliding window given as many tokens as we send.
  const oursCache = results[0]!.cache;
  if (oursCache && oursCache.calls > 0) {
    const equal = await equalTokenCacheFigures(
      cacheBaseline(slidingWindowBaseline),
      cacheInput,
      meanRequestTokens(oursCache),
    );
    results[0]!.cacheAtOurTokens = { system: `${slidingWindowBaseline.name} at our tokens`, ...equal };
    results[0]!.cacheCeiling = cacheCeiling(cacheInput);
  }
  for (const baseline of baselines) {
    const started = performance.now();
    try {
      const output = await baseline.run({ thread, ceiling, provider, tokenizer, system: '' });
      const elapsedMs = Math.round(performance.now() - started);
      const checks = checkRequest(output.request, provider, tokenizer, ceiling);
      results.push({
        system: baseline.name,
        ...common,
        ...checks,
        compressionRatio: compressionRatio(report.tokensBefore, checks.requestTokens),
        retention: retentionOf(output.request),
        elapsedMs,
        ...(options.cache ? { cache: await baselineCacheFigures(cacheBaseline(baseline), cacheInput) } : {}),
        ...(await questionsOf(conditionedBaseline(baseline))),
      });
    } catch (error) {
      results.push({
        system: baseline.name,
        ...common,
        requestTokens: 0,
        withinBudget: false,
        valid: false,
        validationErrors: [],
        compressionRatio: 0,
        retention: { overall: { retained: 0, total: probes.length }, byKind: {} },
        elapsedMs: Math.round(performance.now() - started),
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  for (const { cache: system, asked } of options.extraSystems) {
    const started = performance.now();
    const output = await compactedRequest(system, cacheInput);
    const checks = checkRequest(output.request, provider, tokenizer, ceiling);
    results.push({
      system: system.name,
      ...common,
      ...checks,
      compressionRatio: compressionRatio(report.tokensBefore, checks.requestTokens),
      retention: retentionOf(output.request),
      elapsedMs: Math.round(performance.now() - started),
      ...(options.cache ? { cache: await baselineCacheFigures(system, cacheInput) } : {}),
      ...(await questionsOf(asked)),
    });
  }
  return results;
}

/** A system of the cache replay beside the baselines, and the same system asked questions. */
interface ExtraSystem {
  cache: CacheSystem;
  asked: ConditionedSystem;
}

/**
 * Retention beside the cache (ADR-0365): on a conversation with QA items whose run measures the cache,
 * each system is compacted once at the run's ceiling and asked every question (as the
 * question-conditioned part does at its compression ratios); the result goes on the system's row.
 * Elsewhere (coding runs have their probes; a run without the cache replay) nothing is asked.
 */
function windowQuestions(
  probes: readonly QaProbe[] | undefined,
  measureCache: boolean,
  input: { thread: Thread; ceiling: number; provider: ProviderName; tokenizer: ProviderTokenizer },
): (system: ConditionedSystem) => Promise<{ questions?: WindowQuestions }> {
  if (!measureCache || !probes || probes.length === 0) return async () => ({});
  const asking = conversationQuestions(input.thread, probes, input.tokenizer, input.provider);
  return async (system) => {
    const scored = await scoreSystem(
      system,
      { ...input, questionReserve: asking.questionReserve },
      asking.questions,
      asking.scorer,
    );
    return {
      questions: {
        overall: scored.overall,
        early: scored.early,
        late: scored.late,
        meanTokens: scored.usage.meanTokens,
      },
    };
  };
}

/**
 * The metrics of one replay (ours or a preset), checked against the ceiling its own policy renders
 * under (a preset with a smaller safety buffer has a higher one; the row says which).
 */
function replayRun(
  system: string,
  replay: Awaited<ReturnType<typeof replayTranscript>>,
  common: Pick<RunMetrics, 'transcript' | 'kind' | 'window' | 'ceiling' | 'transcriptTokens'>,
  retentionOf: (request: unknown) => ProbeRetention,
  measureCache: boolean,
): RunMetrics {
  const { report, thread, plan, tokenizer } = replay;
  const ceiling = report.ceiling > 0 ? report.ceiling : common.window;
  const checks = checkRequest(replay.request, report.provider, tokenizer, ceiling);
  return {
    system,
    ...common,
    ceiling,
    ...checks,
    compressionRatio: compressionRatio(report.tokensBefore, checks.requestTokens),
    retention: retentionOf(replay.request),
    emergency: replay.renderReport ? emergencyFigures(replay.renderReport) : null,
    ...summaryAgainstBudget(thread, plan, tokenizer, report.provider),
    rehydrationTokens: replay.renderReport?.rehydration.tokens ?? 0,
    elapsedMs: report.elapsedMs,
    summarizerCalls: report.summarizerCalls,
    summarizerCostUsd: report.summarizerCostUsd,
    compactions: report.compactions,
    ...(measureCache ? { cache: oursCacheFigures(replay) } : {}),
    ...(report.renderError ? { error: report.renderError } : {}),
  };
}

function readPolicy(nameOrFile: string): Promise<Partial<CompactionPolicy>> {
  return readPolicyOption(nameOrFile);
}
