import type { SummarizeRequest, SummarizeResult, Summarizer } from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';

/** A stand-in for a model summarizer: extractive output reported as `llm`, with every call counted. */
export function countingSummarizer(): Summarizer & { calls: SummarizeRequest[] } {
  const inner = createExtractiveSummarizer();
  const calls: SummarizeRequest[] = [];
  return {
    id: 'counting',
    modelId: 'counting-model',
    promptVersion: 'counting-1',
    calls,
    async summarize(request): Promise<SummarizeResult> {
      calls.push(request);
      const result = await inner.summarize(request);
      return { ...result, summarizerId: 'counting', modelId: 'counting-model', costUsd: 0.001, via: 'llm' };
    },
  };
}
