import type { SummarizeRequest, SummarizeResult, Summarizer } from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';

/**
 * A model stand-in whose calls all wait until `open()`: a test can hold two checks of one thread
 * inside the planner at once, so both commit against the same plan version.
 */
export function gatedSummarizer(): Summarizer & { calls: SummarizeRequest[]; open(): void } {
  const inner = createExtractiveSummarizer();
  const calls: SummarizeRequest[] = [];
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    id: 'gated',
    modelId: 'gated-model',
    promptVersion: 'gated-1',
    calls,
    open: () => open(),
    async summarize(request): Promise<SummarizeResult> {
      calls.push(request);
      await gate;
      const result = await inner.summarize(request);
      return { ...result, summarizerId: 'gated', modelId: 'gated-model', costUsd: 0.002, via: 'llm' };
    },
  };
}

/** True when every span asked for has been asked for exactly `times` times. */
export function everySpanRequested(calls: readonly SummarizeRequest[], times: number): boolean {
  const counts = new Map<string, number>();
  for (const call of calls) {
    const key = call.span.messageIds.join(',');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts.size > 0 && [...counts.values()].every((count) => count === times);
}
