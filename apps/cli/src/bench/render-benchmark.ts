import type { ProviderName, Thread, Tokenizer } from '@compactor/core';
import { createRenderCache, type RenderCache, renderPromptSync } from '@compactor/render';
import {
  benchBudget,
  benchPlan,
  benchSystem,
  benchTools,
  corpusAvailable,
  corpusThread,
  createRetokenizingTokenizer,
  percentile,
  time,
} from '@compactor/render/bench';
import { createTokenizer } from '@compactor/tokenizer';
import type { BenchSizes } from './bench-sizes.js';
import { syntheticThread } from './synthetic-thread.js';

export interface Latency {
  p50Ms: number;
  p99Ms: number;
  runs: number;
}

export interface RenderBenchResult {
  source: string;
  messages: number;
  planRecords: number;
  renderedTokens: number;
  /** Warm renders (a render cache kept between calls), anthropic. */
  ours: Latency;
  /** js-tiktoken re-tokenizing every message on every call, no cache. */
  baseline: Latency;
  /** Baseline p50 over ours: how many times faster. */
  speedupP50: number;
}

const PROVIDER: ProviderName = 'anthropic';

function latencies(samples: number[]): Latency {
  return { p50Ms: percentile(samples, 0.5), p99Ms: percentile(samples, 0.99), runs: samples.length };
}

/**
 * The render package's benchmark, its anthropic warm case: a pi-built thread (synthetic when the
 * corpus is absent) with a 50-record plan, against a re-tokenizing per-step renderer (ADR-0023).
 */
export function benchRender(sizes: BenchSizes['render']): RenderBenchResult {
  const gpt = createTokenizer({ model: 'gpt-4o' });
  const thread: Thread = corpusAvailable
    ? corpusThread(gpt, sizes.messages, sizes.targetTokens).thread
    : syntheticThread(sizes.messages, 200_000);
  const plan = benchPlan(thread);
  const render = (tokenizer: Tokenizer, cache?: RenderCache) =>
    renderPromptSync({
      thread,
      plan,
      system: benchSystem,
      tools: benchTools,
      budget: benchBudget,
      provider: PROVIDER,
      tokenizer,
      ...(cache ? { cache } : {}),
    });
  const claude = createTokenizer({ model: 'claude-sonnet-4-5' });
  const cache = createRenderCache();
  let rendered = render(claude, cache);
  for (let run = 0; run < 20; run += 1) rendered = render(claude, cache);
  const ours = latencies(Array.from({ length: sizes.warmRuns }, () => time(() => render(claude, cache))));
  const retokenizing = createRetokenizingTokenizer();
  const baseline = latencies(
    Array.from({ length: sizes.baselineRuns }, () => time(() => render(retokenizing))),
  );
  const planRecords =
    plan.summarizations.length + plan.externalizations.length + plan.clearings.length + plan.drops.length;
  return {
    source: corpusAvailable ? 'pi sessions (corpus)' : 'synthetic coding thread (corpus absent)',
    messages: thread.messages.length,
    planRecords,
    renderedTokens: rendered.tokens.total,
    ours,
    baseline,
    speedupP50: baseline.p50Ms / ours.p50Ms,
  };
}
