import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import {
  type CompactionPlan,
  compactionPolicySchema,
  normalizePlan,
  parsePolicy,
  planWithPolicy,
  type SummarizeRequest,
  type Summarizer,
  structuredSummarySchema,
  type Thread,
} from '../src/index.js';

const countText = (text: string) => Math.ceil(text.length / 4);
const countMessage = (message: { content: readonly { type: string; text?: string }[] }) =>
  4 + message.content.reduce((total, part) => total + countText(part.text ?? 'x'.repeat(40)), 0);
const measureFor = (thread: Thread) => (plan: CompactionPlan) => {
  const normalized = normalizePlan(plan);
  return thread.messages.reduce((total, message) => {
    const action = normalized.actions.get(message.id)?.action;
    return total + (action === 'drop' ? 0 : action === 'summarize' ? 1 : countMessage(message));
  }, 0);
};

function conversation(turns: number, mode: unknown, policy: Record<string, unknown> = {}) {
  const builder = threadBuilder('t1', { policy: { mode: mode as never, ...policy } });
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`question ${turn} ${'about the garden '.repeat(10)}`);
    builder.assistant(`answer ${turn} ${'plant tomatoes '.repeat(10)}`);
  }
  return builder.build().thread;
}

function summarizer(behaviour: 'ok' | 'fail' = 'ok'): Summarizer & { requests: SummarizeRequest[] } {
  const requests: SummarizeRequest[] = [];
  return {
    id: 's',
    modelId: 's',
    promptVersion: '1',
    requests,
    async summarize(request) {
      requests.push(request);
      if (behaviour === 'fail') throw new Error('down');
      return {
        summary: structuredSummarySchema.parse({
          facts: [{ text: `covers ${request.span.messageIds.length} messages`, pinned: true }],
        }),
        summarizerId: 's',
        modelId: 's',
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        via: 'llm',
      };
    },
  };
}

const inputFor = (thread: Thread, overrides: Record<string, unknown> = {}) => ({
  thread,
  currentPlan: null,
  targetTokens: 300,
  measure: measureFor(thread),
  countMessage,
  countText,
  summarizer: summarizer(),
  now: '2025-01-02T00:00:00.000Z',
  ...overrides,
});

describe('compaction modes: sliding window, turn window, token budget, recursive summarization as policies (ADR-0011)', () => {
  it('validates overlapSize: at least 0 and below maxEventsToKeep', () => {
    expect(() =>
      parsePolicy({ mode: { kind: 'recursive-summarization', maxEventsToKeep: 4, overlapSize: 4 } }),
    ).toThrow(/overlapSize/);
    expect(() =>
      parsePolicy({ mode: { kind: 'recursive-summarization', maxEventsToKeep: 4, overlapSize: -1 } }),
    ).toThrow();
    expect(
      compactionPolicySchema.parse({ mode: { kind: 'recursive-summarization', maxEventsToKeep: 4 } }).mode,
    ).toEqual({
      kind: 'recursive-summarization',
      maxEventsToKeep: 4,
      overlapSize: 2,
    });
  });

  it('runs the sliding window as a plan of drops', async () => {
    const thread = conversation(6, { kind: 'sliding-window', maxEvents: 4 });
    const outcome = await planWithPolicy(inputFor(thread));
    expect(outcome.status).toBe('compacted');
    const dropped = outcome.plan.drops.flatMap((record) => record.span.messageIds);
    expect(dropped).toEqual(thread.messages.slice(0, 8).map((message) => message.id));
  });

  it('summarizes everything older than the active window, feeding the overlap as context only', async () => {
    const thread = conversation(6, { kind: 'recursive-summarization', maxEventsToKeep: 4, overlapSize: 2 });
    const recording = summarizer();
    const outcome = await planWithPolicy(inputFor(thread, { summarizer: recording }));
    expect(outcome.status).toBe('compacted');
    const [record] = outcome.plan.summarizations;
    expect(record!.span.messageIds).toEqual(thread.messages.slice(0, 8).map((message) => message.id));
    expect(recording.requests[0]!.messages.map((message) => message.id)).toEqual(
      thread.messages.slice(0, 10).map((message) => message.id),
    );
  });

  it('chains (rolling composition): the next round folds the previous summary in and replaces it', async () => {
    const mode = { kind: 'recursive-summarization', maxEventsToKeep: 4, overlapSize: 0 };
    const thread = conversation(6, mode, { summaryComposition: 'rolling' });
    const first = await planWithPolicy(inputFor(thread));
    const longer = conversation(9, mode, { summaryComposition: 'rolling' });
    const recording = summarizer();
    const second = await planWithPolicy(
      inputFor(longer, { currentPlan: first.plan, summarizer: recording, measure: measureFor(longer) }),
    );
    expect(second.plan.summarizations).toHaveLength(1);
    expect(second.plan.summarizations[0]!.round).toBe(2);
    expect(second.plan.summarizations[0]!.span.messageIds).toEqual(
      longer.messages.slice(0, 14).map((message) => message.id),
    );
    expect(recording.requests[0]!.previousSummary).toEqual(first.plan.summarizations[0]!.summary);
    // Only the newly archived messages are sent; the old ones are represented by the previous summary.
    expect(recording.requests[0]!.messages.map((message) => message.id)).toEqual(
      longer.messages.slice(8, 14).map((message) => message.id),
    );
  });

  it('leaves history unchanged and calls the failure callback when the summarizer fails', async () => {
    const thread = conversation(6, { kind: 'recursive-summarization', maxEventsToKeep: 4 });
    const failures: unknown[] = [];
    const outcome = await planWithPolicy(
      inputFor(thread, {
        summarizer: summarizer('fail'),
        onSummarizationFailure: (details: unknown) => failures.push(details),
      }),
    );
    expect(outcome.status).toBe('unchanged');
    expect(outcome.added).toEqual([]);
    expect(failures).toHaveLength(1);
  });
});
