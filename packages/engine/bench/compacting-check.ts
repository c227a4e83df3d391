import { performance } from 'node:perf_hooks';
import {
  availableForMessages,
  type CompactionPlan,
  type PlannerOutcome,
  planWithPolicy,
  type Summarizer,
  type Thread,
  type Tokenizer,
} from '@compactor/core';
import { createRenderCache } from '@compactor/render';
import { createRenderMeasurer, threadBudget } from '../src/index.js';

export interface CompactingCheckOptions {
  /** A thread whose history `plan` already hides, with enough appended to go over its target. */
  thread: Thread;
  plan: CompactionPlan;
  tokenizer: Tokenizer;
  summarizer: Summarizer;
  /** Timed checks after the cold one. */
  runs: number;
}

export interface CompactingCheck {
  /** The first check, which fills the render cache. */
  coldMs: number;
  /** Milliseconds of each timed check after the cold one. */
  samples: number[];
  /** CPU milliseconds (user + system, all threads) of each timed check: steadier than wall time on a loaded machine. */
  cpuSamples: number[];
  target: number;
  tokensBefore: number;
  last: PlannerOutcome;
}

/**
 * The planning part of a compacting check (issue #18), the way the engine runs it: a fresh measurer over
 * a shared render cache measures the committed plan, then `planWithPolicy` plans from it. Planning is
 * pure, so each sample plans the same thread from the same plan.
 */
export async function measureCompactingCheck(options: CompactingCheckOptions): Promise<CompactingCheck> {
  const { thread, tokenizer, plan } = options;
  const target = availableForMessages(threadBudget(thread));
  const cache = createRenderCache();
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  let coldMs = 0;
  let tokensBefore = 0;
  let last: PlannerOutcome | undefined;
  for (let index = 0; index < options.runs + 1; index += 1) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const measurer = createRenderMeasurer(thread, tokenizer, 'anthropic', cache);
    tokensBefore = measurer.measure(plan);
    last = await planWithPolicy({
      thread,
      currentPlan: plan,
      targetTokens: target,
      measure: measurer.measure,
      countMessage: measurer.countMessage,
      countText: measurer.countText,
      summarizer: options.summarizer,
      now: '2025-01-01T00:00:00.000Z',
      triggerFired: true,
    });
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);
    if (index === 0) coldMs = elapsed;
    else {
      samples.push(elapsed);
      cpuSamples.push((cpu.user + cpu.system) / 1000);
    }
  }
  return { coldMs, samples, cpuSamples, target, tokensBefore, last: last! };
}
