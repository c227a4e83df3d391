import { performance } from 'node:perf_hooks';
import { type CompactionPolicy, normalizePlan } from '@compactor/core';
import { readPolicyOption } from '../commands/policy-option.js';
import { replayTranscript } from '../replay/replay-transcript.js';
import type { Baseline } from './baselines/baseline.js';
import { baselines as defaultBaselines } from './baselines/index.js';
import { measureDrift } from './drift.js';
import {
  type DriftResult,
  defaultChatBudgets,
  defaultCodingBudgets,
  type EvalTranscript,
  type EvaluationResult,
  isCodingKind,
  type ProbeRetention,
  type RunMetrics,
} from './eval-types.js';
import { codingRetention, qaRetention, type RequestView } from './probe-retention.js';
import { deriveCodingProbes, measurableQaProbes } from './probes.js';
import { checkRequest, compressionRatio } from './request-checks.js';
import { requestText } from './request-text.js';
import { summarize } from './summarize-runs.js';
import { selectTranscripts } from './transcript-set.js';

export const OURS = 'compactor';

export interface EvaluationProgress {
  done: number;
  total: number;
  /** What just finished (`locomo#1 @ 8000`). */
  step: string;
}

export interface EvaluationOptions {
  corpusDir: string;
  /** Budgets for every transcript; default per kind (chats 8k–64k, coding sessions 32k–128k). */
  budgets?: number[];
  /** A policy preset's name or a JSON policy file (partial), applied to our system. */
  policyFile?: string;
  /** The transcripts to run instead of the corpus selection. */
  transcripts?: EvalTranscript[];
  quick?: boolean;
  /** Default: the four baselines of `./baselines/index.ts`. */
  baselines?: Baseline[];
  /** Chained-compaction drift on every coding session and the first transcript of each other kind (default true). */
  drift?: boolean;
  onProgress?: (progress: EvaluationProgress) => void;
}

/** Run our compaction and every baseline on each transcript at each budget, and measure them. */
export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const baselines = options.baselines ?? defaultBaselines;
  const policy = options.policyFile ? await readPolicy(options.policyFile) : undefined;
  const selection = options.transcripts
    ? { transcripts: options.transcripts, skipped: [] }
    : await selectTranscripts(options.corpusDir, { quick: options.quick ?? false });
  const budgetsFor = (transcript: EvalTranscript) =>
    options.budgets ?? (isCodingKind(transcript.kind) ? defaultCodingBudgets : defaultChatBudgets);
  const driftSample = options.drift === false ? [] : driftTranscripts(selection.transcripts);
  const total =
    selection.transcripts.reduce((sum, transcript) => sum + budgetsFor(transcript).length, 0) +
    driftSample.length;
  let done = 0;
  const runs: RunMetrics[] = [];
  for (const transcript of selection.transcripts) {
    for (const budget of budgetsFor(transcript)) {
      runs.push(...(await evaluateAtBudget(transcript, budget, baselines, policy)));
      done += 1;
      options.onProgress?.({ done, total, step: `${transcript.label} @ ${budget}` });
    }
  }
  const drift: DriftResult[] = [];
  for (const transcript of driftSample) {
    // A window the whole transcript fits, so only the forced rounds compact.
    drift.push(await measureDrift(transcript, Math.max(...budgetsFor(transcript), 200_000)));
    done += 1;
    options.onProgress?.({ done, total, step: `drift ${transcript.label}` });
  }
  const systems = [
    { name: OURS, source: '@compactor/engine (replayTranscript)' },
    ...baselines.map((baseline) => ({ name: baseline.name, source: baseline.source })),
  ];
  const { summaries, locomoAtFourTimes } = summarize(runs, systems);
  return {
    startedAt,
    elapsedMs: Math.round(performance.now() - started),
    corpusDir: options.corpusDir,
    transcripts: selection.transcripts,
    skipped: selection.skipped,
    systems,
    runs,
    drift,
    summaries,
    locomoAtFourTimes,
  };
}

async function evaluateAtBudget(
  transcript: EvalTranscript,
  budget: number,
  baselines: readonly Baseline[],
  policy: Partial<CompactionPolicy> | undefined,
): Promise<RunMetrics[]> {
  const replay = await replayTranscript({
    file: transcript.file,
    conversation: transcript.conversation,
    budget,
    ...(policy ? { policy } : {}),
  });
  const { report, thread, plan, tokenizer, imported } = replay;
  const provider = report.provider;
  const ceiling = report.ceiling > 0 ? report.ceiling : budget;
  const qaProbes = imported.probes ? measurableQaProbes(imported.probes) : undefined;
  const codingProbes = qaProbes ? [] : deriveCodingProbes(thread);
  const retentionOf = (view: RequestView): ProbeRetention =>
    qaProbes ? qaRetention(thread, qaProbes, view) : codingRetention(codingProbes, view);
  const common = {
    transcript: transcript.label,
    kind: transcript.kind,
    budget,
    ceiling,
    transcriptTokens: report.tokensBefore,
  };

  const normalized = plan ? normalizePlan(plan) : undefined;
  const artifacts = new Map<string, Set<string>>(
    (plan?.externalizations ?? []).map((record) => [record.artifactId, new Set(record.span.messageIds)]),
  );
  const ours = checkRequest(replay.request, provider, tokenizer, ceiling);
  const results: RunMetrics[] = [
    {
      system: OURS,
      ...common,
      ...ours,
      compressionRatio: compressionRatio(report.tokensBefore, ours.requestTokens),
      retention: retentionOf({
        text: requestText(replay.request),
        keptVerbatim: (id) => (normalized?.actions.get(id)?.action ?? 'include') === 'include',
        artifacts,
      }),
      elapsedMs: report.elapsedMs,
      summarizerCalls: report.summarizerCalls,
      summarizerCostUsd: report.summarizerCostUsd,
      compactions: report.compactions,
      ...(report.renderError ? { error: report.renderError } : {}),
    },
  ];
  for (const baseline of baselines) {
    const started = performance.now();
    try {
      const output = await baseline.run({ thread, ceiling, provider, tokenizer, system: '' });
      const elapsedMs = Math.round(performance.now() - started);
      const kept = new Set(output.keptMessageIds);
      const checks = checkRequest(output.request, provider, tokenizer, ceiling);
      results.push({
        system: baseline.name,
        ...common,
        ...checks,
        compressionRatio: compressionRatio(report.tokensBefore, checks.requestTokens),
        retention: retentionOf({
          text: requestText(output.request),
          keptVerbatim: (id) => kept.has(id),
          artifacts: new Map(),
        }),
        elapsedMs,
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
        retention: { overall: { retained: 0, compacted: 0 }, early: { retained: 0, compacted: 0 } },
        elapsedMs: Math.round(performance.now() - started),
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return results;
}

function readPolicy(nameOrFile: string): Promise<Partial<CompactionPolicy>> {
  return readPolicyOption(nameOrFile);
}

/** Every coding session (their pinned instructions are what drift threatens), the first of each chat kind. */
function driftTranscripts(transcripts: readonly EvalTranscript[]): EvalTranscript[] {
  const seen = new Set<string>();
  return transcripts.filter((transcript) => {
    if (isCodingKind(transcript.kind)) return true;
    if (seen.has(transcript.kind)) return false;
    seen.add(transcript.kind);
    return true;
  });
}
