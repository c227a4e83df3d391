import { type SummarizeRequest, type Summarizer, structuredSummarySchema } from '@compactor/core';

/** A summarizer that records what it was shown and answers one fixed fact (planner tests against the renderer). */
export function capturingSummarizer(): Summarizer & { requests: SummarizeRequest[] } {
  const requests: SummarizeRequest[] = [];
  return {
    id: 'capturing',
    modelId: 'test',
    promptVersion: '1',
    requests,
    async summarize(request) {
      requests.push(request);
      return {
        summary: structuredSummarySchema.parse({ facts: [{ text: 'summarized' }] }),
        summarizerId: 'capturing',
        modelId: 'test',
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        via: 'llm',
      };
    },
  };
}
