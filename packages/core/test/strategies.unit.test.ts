import { describe, expect, it } from 'vitest';
import {
  type CompactionPlan,
  CompactorError,
  type DeterministicStrategyOptions,
  emptyPlan,
  emptySummary,
  slidingWindow,
  type Thread,
  type ThreadMessage,
  tokenBudgetSuffix,
  turnWindow,
} from '../src/index.js';
import { threadBuilder } from './support/testkit.js';

const NOW = '2025-06-01T00:00:00.000Z';

/** Every message costs 10 tokens unless listed. */
function options(
  thread: Thread,
  costs: Record<string, number> = {},
  basePlan?: CompactionPlan,
): DeterministicStrategyOptions {
  return {
    countTokens: (message: ThreadMessage) => costs[message.id] ?? 10,
    basePlan: basePlan ?? emptyPlan(thread.id, '2025-01-01T00:00:00.000Z', 1),
    now: NOW,
  };
}

/** Three turns, the second with two assistant replies: [u1, a1, u2, a2, a3, u3, a3] (turn snapping, ADR-0012). */
const turnSnappingExample = () =>
  threadBuilder('t1')
    .user('u1') // m1
    .assistant('a1') // m2
    .user('u2') // m3
    .assistant('a2') // m4
    .assistant('a3') // m5
    .user('u3') // m6
    .assistant('a3') // m7
    .build().thread;

const threeTurnsAfterASummary = () =>
  threadBuilder('t1')
    .system('be brief') // m1
    .user('Summarize the conversation.', { synthetic: true }) // m2
    .assistant('Earlier: ordered a book.', { synthetic: true }) // m3
    .user('u1') // m4
    .assistant('a1') // m5
    .user('u2') // m6
    .assistant('a2') // m7
    .user('u3') // m8
    .assistant('a3') // m9
    .build().thread;

describe('slidingWindow', () => {
  it('snaps a cut inside a turn forward to the next user message ([u1, a1, u2, a2, a3, u3, a3], ADR-0012)', () => {
    const thread = turnSnappingExample();
    const result = slidingWindow(thread, { maxEvents: 3 }, options(thread));
    expect(result.archivedIds).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(result.keptIds).toEqual(['m6', 'm7']);
    expect(result.preservedIds).toEqual([]);
    expect(result.tokensSaved).toBe(50);
    expect(result.plan.drops).toEqual([
      {
        kind: 'drop',
        span: { messageIds: ['m1', 'm2', 'm3', 'm4', 'm5'], firstTurn: 1, lastTurn: 2 },
        reason: 'sliding window: kept the last 3 events',
      },
    ]);
    expect(result.plan.basedOnSeq).toBe(thread.version);
    expect(result.plan.createdAt).toBe(NOW);
  });

  it('keeps everything when the thread has at most N real events', () => {
    const thread = turnSnappingExample();
    for (const maxEvents of [7, 8, 100]) {
      const result = slidingWindow(thread, { maxEvents }, options(thread));
      expect(result.archivedIds).toEqual([]);
      expect(result.keptIds).toHaveLength(7);
      expect(result.plan.drops).toEqual([]);
      expect(result.tokensSaved).toBe(0);
    }
  });

  it('archives every real event for N = 0', () => {
    const thread = turnSnappingExample();
    const result = slidingWindow(thread, { maxEvents: 0 }, options(thread));
    expect(result.keptIds).toEqual([]);
    expect(result.archivedIds).toHaveLength(7);
  });

  it('keeps synthetic summaries and system messages without counting them against N', () => {
    const thread = threeTurnsAfterASummary();
    const result = slidingWindow(thread, { maxEvents: 2 }, options(thread));
    expect(result.preservedIds).toEqual(['m1', 'm2', 'm3']);
    expect(result.keptIds).toEqual(['m8', 'm9']);
    expect(result.archivedIds).toEqual(['m4', 'm5', 'm6', 'm7']);
  });

  it('treats messages a base plan summarized as summaries, and ignores those it dropped', () => {
    const thread = threeTurnsAfterASummary();
    const base: CompactionPlan = {
      ...emptyPlan(thread.id, 'then', 3),
      version: 2,
      summarizations: [
        {
          kind: 'summarize',
          span: { messageIds: ['m4', 'm5'], firstTurn: 1, lastTurn: 1 },
          summary: emptySummary(),
          summaryTokenCount: 5,
          round: 1,
        },
      ],
      drops: [
        { kind: 'drop', span: { messageIds: ['m2', 'm3'], firstTurn: 0, lastTurn: 0 }, reason: 'stale' },
      ],
    };
    const result = slidingWindow(thread, { maxEvents: 2 }, options(thread, {}, base));
    expect(result.preservedIds).toEqual(['m1', 'm4', 'm5']);
    expect(result.archivedIds).toEqual(['m6', 'm7']);
    expect(result.keptIds).toEqual(['m8', 'm9']);
    // The new plan builds on the base plan: its records stay, one drop is added.
    expect(result.plan.version).toBe(2);
    expect(result.plan.summarizations).toEqual(base.summarizations);
    expect(result.plan.drops).toEqual([
      ...base.drops,
      {
        kind: 'drop',
        span: { messageIds: ['m6', 'm7'], firstTurn: 2, lastTurn: 2 },
        reason: 'sliding window: kept the last 2 events',
      },
    ]);
  });

  it('moves the cut past a turn whose tool result arrives after the next user message', () => {
    const { thread } = threadBuilder('t1')
      .user('u1') // m1
      .assistant(undefined, { toolCalls: [{ id: 'c1', name: 'bash' }] }) // m2
      .user('u2') // m3: interrupted before the result came back
      .toolResult('c1', 'late') // m4
      .assistant('a2') // m5
      .user('u3') // m6
      .assistant('a3') // m7
      .build();
    // The raw cut (7 - 5 = 2) is the turn start m3, but archiving m2 would orphan m4.
    const result = slidingWindow(thread, { maxEvents: 5 }, options(thread));
    expect(result.archivedIds).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(result.keptIds).toEqual(['m6', 'm7']);
  });

  it('keeps the results of a pinned tool call with it', () => {
    const { thread } = threadBuilder('t1')
      .user('u1') // m1
      .assistant('decided', { pinned: true, toolCalls: [{ id: 'c1', name: 'create_order' }] }) // m2
      .toolResult('c1', { orderId: 'A-17' }) // m3
      .assistant('ordered') // m4
      .user('u2') // m5
      .assistant('a2') // m6
      .build();
    const result = slidingWindow(thread, { maxEvents: 2 }, options(thread));
    expect(result.preservedIds).toEqual(['m2', 'm3']);
    expect(result.archivedIds).toEqual(['m1', 'm4']);
    expect(result.keptIds).toEqual(['m5', 'm6']);
    // Two separate runs of archived messages give two drop records.
    expect(result.plan.drops.map((record) => record.span.messageIds)).toEqual([['m1'], ['m4']]);
  });

  it('does not give up a turn whose pinned user message is kept anyway', () => {
    const { thread } = threadBuilder('t1')
      .user('u1') // m1
      .assistant('a1') // m2
      .user('never delete production data', { pinned: true }) // m3
      .assistant('noted') // m4
      .assistant('done') // m5
      .build();
    const result = slidingWindow(thread, { maxEvents: 2 }, options(thread));
    expect(result.preservedIds).toEqual(['m3']);
    expect(result.archivedIds).toEqual(['m1', 'm2']);
    expect(result.keptIds).toEqual(['m4', 'm5']);
  });
});

describe('turnWindow', () => {
  const withPreamble = () =>
    threadBuilder('t1')
      .system('be brief') // m1
      .assistant('Hello! How can I help?') // m2: preamble, before any user message
      .user('u1') // m3
      .assistant('a1', { toolCalls: [{ id: 'c1', name: 'ls' }] }) // m4
      .toolResult('c1', 'a b c') // m5
      .user('u2') // m6
      .user('note', { synthetic: true }) // m7
      .assistant('a2') // m8
      .user('u3') // m9
      .assistant('a3') // m10
      .build().thread;

  it('keeps the last N whole turns and the preamble', () => {
    const thread = withPreamble();
    const result = turnWindow(thread, { maxTurns: 2 }, options(thread));
    expect(result.archivedIds).toEqual(['m3', 'm4', 'm5']);
    expect(result.keptIds).toEqual(['m6', 'm8', 'm9', 'm10']);
    expect(result.preservedIds).toEqual(['m2', 'm1', 'm7']);
    expect(result.tokensSaved).toBe(30);
    expect(result.plan.drops).toEqual([
      {
        kind: 'drop',
        span: { messageIds: ['m3', 'm4', 'm5'], firstTurn: 1, lastTurn: 1 },
        reason: 'turn window: kept the last 2 turns',
      },
    ]);
  });

  it('keeps everything when there are at most N turns, and only the preamble for N = 0', () => {
    const thread = withPreamble();
    expect(turnWindow(thread, { maxTurns: 3 }, options(thread)).archivedIds).toEqual([]);
    expect(turnWindow(thread, { maxTurns: 10 }, options(thread)).archivedIds).toEqual([]);
    const none = turnWindow(thread, { maxTurns: 0 }, options(thread));
    expect(none.keptIds).toEqual([]);
    expect(none.archivedIds).toEqual(['m3', 'm4', 'm5', 'm6', 'm8', 'm9', 'm10']);
    expect(none.preservedIds).toEqual(['m2', 'm1', 'm7']);
  });

  it('keeps N turns when a kept turn starts with a pinned user message', () => {
    const { thread } = threadBuilder('t1')
      .user('u1') // m1
      .assistant('a1') // m2
      .user('budget is $1000', { pinned: true }) // m3
      .assistant('a2', { toolCalls: [{ id: 'c1', name: 'search' }] }) // m4
      .toolResult('c1', 'results') // m5
      .user('u3') // m6
      .assistant('a3') // m7
      .build();
    const result = turnWindow(thread, { maxTurns: 2 }, options(thread));
    expect(result.archivedIds).toEqual(['m1', 'm2']);
    expect(result.keptIds).toEqual(['m4', 'm5', 'm6', 'm7']);
  });
});

describe('tokenBudgetSuffix', () => {
  const thread = () =>
    threadBuilder('t1')
      .user('summary', { synthetic: true }) // m1
      .user('u1') // m2
      .assistant('a1') // m3
      .user('u2') // m4
      .assistant('a2') // m5
      .assistant('a2 again') // m6
      .user('u3') // m7
      .assistant('a3') // m8
      .build().thread;

  it('keeps the newest suffix that fits after paying for the always-kept messages', () => {
    const t = thread();
    // 90 − 20 for the synthetic summary leaves 70: the seven real messages of 10 tokens each fit exactly.
    const costs = { m1: 20 };
    const result = tokenBudgetSuffix(t, { maxTokens: 90 }, options(t, costs));
    expect(result.keptIds).toEqual(['m2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']);
    const tighter = tokenBudgetSuffix(t, { maxTokens: 75 }, options(t, costs));
    // 55 left: m8..m4 fit (50), m3 does not; the suffix starts at m4, a user message.
    expect(tighter.keptIds).toEqual(['m4', 'm5', 'm6', 'm7', 'm8']);
    expect(tighter.archivedIds).toEqual(['m2', 'm3']);
    expect(tighter.preservedIds).toEqual(['m1']);
    expect(tighter.tokensSaved).toBe(20);
  });

  it('stops at the first message that does not fit rather than skipping it (contiguous suffix)', () => {
    const t = thread();
    // m6 is huge: the walk stops there even though older messages would fit.
    const result = tokenBudgetSuffix(t, { maxTokens: 200 }, options(t, { m1: 0, m6: 1_000 }));
    expect(result.keptIds).toEqual(['m7', 'm8']);
    expect(result.archivedIds).toEqual(['m2', 'm3', 'm4', 'm5', 'm6']);
  });

  it('drops leading kept messages that are not user messages', () => {
    const t = thread();
    // 35 left after m1: m8, m7, m6 fit (30) and the suffix would start at m6, an assistant message.
    const result = tokenBudgetSuffix(t, { maxTokens: 45 }, options(t));
    expect(result.keptIds).toEqual(['m7', 'm8']);
  });

  it('keeps no real message when the always-kept ones use the whole budget', () => {
    const t = thread();
    const result = tokenBudgetSuffix(t, { maxTokens: 10 }, options(t, { m1: 50 }));
    expect(result.keptIds).toEqual([]);
    expect(result.preservedIds).toEqual(['m1']);
    expect(result.archivedIds).toHaveLength(7);
  });
});

describe('strategy settings', () => {
  it('reject negative or fractional bounds with a validation error', () => {
    const thread = turnSnappingExample();
    const calls = [
      () => slidingWindow(thread, { maxEvents: -1 }, options(thread)),
      () => slidingWindow(thread, { maxEvents: 1.5 }, options(thread)),
      () => turnWindow(thread, { maxTurns: -2 }, options(thread)),
      () => tokenBudgetSuffix(thread, { maxTokens: Number.NaN }, options(thread)),
    ];
    for (const call of calls) {
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(CompactorError.hasCode(thrown, 'validation')).toBe(true);
    }
  });

  it('handle a thread without messages', () => {
    const { thread } = threadBuilder('t1').build();
    for (const result of [
      slidingWindow(thread, { maxEvents: 0 }, options(thread)),
      turnWindow(thread, { maxTurns: 0 }, options(thread)),
      tokenBudgetSuffix(thread, { maxTokens: 0 }, options(thread)),
    ]) {
      expect(result).toMatchObject({ archivedIds: [], keptIds: [], preservedIds: [], tokensSaved: 0 });
      expect(result.plan.drops).toEqual([]);
    }
  });
});
