import type { Thread } from '@compactor/core';
import { measurePlanningLatency, piThread } from '@compactor/engine/bench';
import { corpusAvailable, percentile } from '@compactor/render/bench';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { tokenizerForThread } from '@compactor/tokenizer';
import type { BenchSizes } from './bench-sizes.js';
import type { Latency } from './render-benchmark.js';
import { syntheticThread } from './synthetic-thread.js';

export interface PlanningBenchResult {
  source: string;
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
  targetTokens: number;
  records: number;
  coldMs: number;
  ours: Latency;
  targetMs: number;
  /** The target over our p50: above 1 means under target. */
  targetOverP50: number;
  /** Planning that re-renders every measurement with an empty render cache. */
  naive: Latency;
  /** Naive p50 over ours. */
  speedupOverNaiveP50: number;
}

const TARGET_MS = 50;

/**
 * The engine's planning benchmark: a thread planned from scratch with the extractive summarizer
 * (no artifact store), with the render cache, and without it as the naive peer.
 */
export async function benchPlanning(sizes: BenchSizes['planning']): Promise<PlanningBenchResult> {
  const fromCorpus = corpusAvailable;
  // Synthetic threads are smaller per message, so a smaller window keeps the planner busy.
  const thread: Thread = fromCorpus
    ? await piThread(sizes.messages)
    : syntheticThread(sizes.messages, sizes.messages * 60);
  const tokenizer = tokenizerForThread(thread);
  const summarizer = createExtractiveSummarizer();
  const ours = await measurePlanningLatency({ thread, tokenizer, summarizer, runs: sizes.runs });
  const naive = await measurePlanningLatency({
    thread,
    tokenizer,
    summarizer,
    runs: sizes.naiveRuns,
    withoutRenderCache: true,
  });
  const latency = (samples: number[]): Latency => ({
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
    runs: samples.length,
  });
  const oursLatency = latency(ours.samples);
  const naiveLatency = latency(naive.samples);
  return {
    source: fromCorpus ? 'pi sessions (corpus)' : 'synthetic coding thread (corpus absent)',
    messages: thread.messages.length,
    tokensBefore: ours.last.tokensBefore,
    tokensAfter: ours.last.tokensAfter,
    targetTokens: ours.target,
    records: ours.last.added.length,
    coldMs: ours.coldMs,
    ours: oursLatency,
    targetMs: TARGET_MS,
    targetOverP50: TARGET_MS / oursLatency.p50Ms,
    naive: naiveLatency,
    speedupOverNaiveP50: naiveLatency.p50Ms / oursLatency.p50Ms,
  };
}
