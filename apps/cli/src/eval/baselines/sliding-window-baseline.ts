import { type DeterministicStrategyResult, emptyPlan, slidingWindow } from '@compactor/core';
import type { Baseline, BaselineInput } from './baseline.js';
import {
  type BaselineResult,
  type MeasuredRender,
  messageCounter,
  renderMeasured,
  resultOf,
} from './render-selection.js';

interface WindowRender {
  maxEvents: number;
  window: DeterministicStrategyResult;
  measured: MeasuredRender;
}

/**
 * The keep-last-N sliding window (ADR-0011; Google ADK's sliding window) through core's `slidingWindow`, with N the
 * largest that fits the ceiling: a binary search on N, each candidate rendered by our renderer
 * under the window's plan and counted independently.
 */
export const slidingWindowBaseline: Baseline = {
  name: 'sliding-window',
  source: '@compactor/core slidingWindow (Google ADK style keep-last-N, ADR-0011)',
  async run(input: BaselineInput): Promise<BaselineResult> {
    const options = {
      countTokens: messageCounter(input),
      basePlan: emptyPlan(input.thread.id, input.thread.createdAt, input.thread.version),
      now: input.thread.createdAt,
    };
    const renderWindow = (maxEvents: number): WindowRender => {
      const window = slidingWindow(input.thread, { maxEvents }, options);
      return { maxEvents, window, measured: renderMeasured(input, input.thread, window.plan) };
    };
    // Invariant: `best` fits (or N = 0, the smallest window there is); N above `high` does not.
    let best = renderWindow(0);
    let high = input.thread.messages.length;
    let low = 0;
    if (best.measured.tokens <= input.ceiling) {
      while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        const candidate = renderWindow(middle);
        if (candidate.measured.tokens <= input.ceiling) {
          best = candidate;
          low = middle;
        } else {
          high = middle - 1;
        }
      }
    }
    const notes = [`N = ${best.maxEvents}: kept the last ${best.window.keptIds.length} events`];
    if (best.measured.tokens > input.ceiling) notes.push('even an empty window is over the ceiling');
    return resultOf(best.measured, [...best.window.preservedIds, ...best.window.keptIds], notes);
  },
};
