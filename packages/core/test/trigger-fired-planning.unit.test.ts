import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import {
  type CompactionPlan,
  countUserTurns,
  messagesForTrigger,
  normalizePlan,
  planCompaction,
  planWithPolicy,
  type Summarizer,
  structuredSummarySchema,
  type Thread,
} from '../src/index.js';

const countText = (text: string) => Math.ceil(text.length / 4);
const countMessage = (message: { content: readonly { type: string; text?: string }[] }) =>
  4 + message.content.reduce((total, part) => total + countText(part.text ?? ''), 0);
const measureFor = (thread: Thread) => (plan: CompactionPlan) => {
  const normalized = normalizePlan(plan);
  return thread.messages.reduce((total, message) => {
    const action = normalized.actions.get(message.id)?.action;
    return total + (action === 'drop' ? 0 : action === 'summarize' ? 1 : countMessage(message));
  }, 0);
};

const summarizer: Summarizer = {
  id: 's',
  modelId: 's',
  promptVersion: '1',
  async summarize(request) {
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

function conversation(turns: number, policy: Record<string, unknown>) {
  const builder = threadBuilder('t1', { policy: policy as never });
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`question ${turn} ${'about the garden '.repeat(10)}`);
    builder.assistant(`answer ${turn} ${'plant tomatoes '.repeat(10)}`);
  }
  return builder.build().thread;
}

const inputFor = (thread: Thread, overrides: Record<string, unknown> = {}) => ({
  thread,
  currentPlan: null,
  // Far above the prompt: only a firing trigger makes the planner act.
  targetTokens: 1_000_000,
  measure: measureFor(thread),
  countMessage,
  countText,
  summarizer,
  now: '2025-01-02T00:00:00.000Z',
  ...overrides,
});

describe('a firing trigger within the target (ADR-0105)', () => {
  it('leaves the plan unchanged when no trigger fired', async () => {
    const thread = conversation(25, { mode: { kind: 'sliding-window', maxEvents: 10 } });
    expect((await planWithPolicy(inputFor(thread))).status).toBe('unchanged');
  });

  it('runs the sliding window when its trigger fired', async () => {
    const thread = conversation(25, { mode: { kind: 'sliding-window', maxEvents: 10 } });
    const outcome = await planWithPolicy(inputFor(thread, { triggerFired: true }));
    expect(outcome.status).toBe('compacted');
    expect(outcome.plan.drops.flatMap((drop) => drop.span.messageIds)).toHaveLength(40);
  });

  it('climbs the ladder until it frees clearAtLeastTokens when its trigger fired', async () => {
    const thread = conversation(25, { keepRecentTurns: 2, keepRecentTokens: 50, clearAtLeastTokens: 300 });
    const outcome = await planCompaction(inputFor(thread, { triggerFired: true }));
    expect(outcome.status).toBe('compacted');
    expect(outcome.tokensBefore - outcome.tokensAfter).toBeGreaterThanOrEqual(300);
  });

  it('still answers disabled when automatic compaction is off', async () => {
    const thread = conversation(25, { autoCompact: false, mode: { kind: 'turn-window', maxTurns: 2 } });
    expect((await planWithPolicy(inputFor(thread, { triggerFired: true }))).status).toBe('disabled');
  });
});

describe('messagesForTrigger', () => {
  it('counts only the turns the prompt still shows', async () => {
    const thread = conversation(25, { mode: { kind: 'turn-window', maxTurns: 5 } });
    const outcome = await planWithPolicy(inputFor(thread, { triggerFired: true }));
    expect(countUserTurns(messagesForTrigger(thread.messages, null))).toBe(25);
    expect(countUserTurns(messagesForTrigger(thread.messages, outcome.plan))).toBe(5);
  });
});
