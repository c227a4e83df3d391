import { performance } from 'node:perf_hooks';
import {
  type ArtifactStore,
  availableForMessages,
  type PlannerOutcome,
  planCompaction,
  type Summarizer,
  type Thread,
  type Tokenizer,
} from '@compactor/core';
import { createRenderCache } from '@compactor/render';
import { createRenderMeasurer, threadBudget } from '../src/index.js';

export interface PlanningLatencyOptions {
  thread: Thread;
  tokenizer: Tokenizer;
  summarizer: Summarizer;
  /** Timed plans after the cold one. */
  runs: number;
  artifactStore?: ArtifactStore;
  /**
   * The naive peer: every measurement re-renders with an empty render cache, as a planner
   * without the renderer's memo would.
   */
  withoutRenderCache?: boolean;
  /** Runs before each plan, untimed (the bench opens a new artifact store there). */
  beforeEachPlan?: () => Promise<void>;
}

export interface PlanningLatency {
  /** The first plan, which fills the render cache (per-message counts). */
  coldMs: number;
  /** Milliseconds of each timed plan after the cold one. */
  samples: number[];
  target: number;
  last: PlannerOutcome;
}

/** Plan `thread` from scratch `runs + 1` times, the way the engine does, with the real renderer. */
export async function measurePlanningLatency(options: PlanningLatencyOptions): Promise<PlanningLatency> {
  const { thread, tokenizer } = options;
  const target = availableForMessages(threadBudget(thread));
  const cache = createRenderCache();
  const samples: number[] = [];
  let coldMs = 0;
  let last: PlannerOutcome | undefined;
  for (let index = 0; index < options.runs + 1; index += 1) {
    const measurer = createRenderMeasurer(thread, tokenizer, 'anthropic', cache);
    const measure = options.withoutRenderCache
      ? (plan: Parameters<typeof measurer.measure>[0]) =>
          createRenderMeasurer(thread, tokenizer, 'anthropic', createRenderCache()).measure(plan)
      : measurer.measure;
    await options.beforeEachPlan?.();
    const started = performance.now();
    last = await planCompaction({
      thread,
      currentPlan: null,
      targetTokens: target,
      measure,
      countMessage: measurer.countMessage,
      countText: measurer.countText,
      summarizer: options.summarizer,
      now: '2025-01-01T00:00:00.000Z',
      ...(options.artifactStore ? { artifactStore: options.artifactStore } : {}),
    });
    const elapsed = performance.now() - started;
    if (index === 0) coldMs = elapsed;
    else samples.push(elapsed);
  }
  return { coldMs, samples, target, last: last! };
}
