/**
 * Core's pieces of the default policy's wiring (ADR-0190, ADR-0191, ADR-0195): plan commits in the log, the
 * rehydration state the lifecycle log implies, and the quality metrics' canary.
 */
import { describe, expect, it } from 'vitest';
import {
  askedForContext,
  compactionQualityMetrics,
  emptyPlan,
  foldThread,
  type LifecycleEvent,
  lastConversationSeq,
  lifecycleRecordKey,
  planCommittedEvent,
  plansFromLog,
  planVersionsMissingFromLog,
  registeredContext,
  rehydrationHappenedInTurn,
  rehydrationStateFromLifecycle,
  type StoredEvent,
} from '../src/index.js';
import { threadBuilder } from './support/testkit.js';

function stored(events: StoredEvent[], payload: Record<string, unknown>, eventId: string): StoredEvent[] {
  const seq = events.length + 1;
  return [
    ...events,
    {
      ...(payload as object),
      eventId,
      tenantId: 't',
      threadId: 'th',
      seq,
      timestamp: '2025-01-01T00:00:00Z',
    } as StoredEvent,
  ];
}

describe('plan commits in the log (ADR-0190)', () => {
  it('rebuilds versions, finds the missing ones, and leaves the conversation and its version alone', () => {
    const { events: built } = threadBuilder('th').user('hello').assistant('hi').build();
    let events = built.map((event) => ({ ...event, tenantId: 't' }));
    const plan1 = emptyPlan('th', '2025-01-01T00:00:00Z', 3);
    const first = planCommittedEvent(plan1, 1);
    expect(first.eventId).toBe('plan.committed:1');
    events = stored(events, first, first.eventId);
    events = stored(events, { type: 'context.registered', system: 'be brief', tools: [] }, 'ctx');
    const folded = foldThread(events);
    expect(folded.messages.map((message) => message.id)).toEqual(foldThread(built).messages.map((m) => m.id));
    // The thread version is the log's; the conversation ended before the records.
    expect(folded.version).toBe(events.length);
    expect(lastConversationSeq(events)).toBe(built.at(-1)!.seq);
    expect(plansFromLog(events).get(1)).toEqual({ ...plan1, version: 1 });
    expect(planVersionsMissingFromLog(events, 3)).toEqual([2, 3]);
    expect(registeredContext(events)).toMatchObject({ system: 'be brief', tools: [] });
  });
});

describe('rehydration state from the lifecycle log (ADR-0191)', () => {
  const event = (name: LifecycleEvent['name'], details: Record<string, unknown>): LifecycleEvent => ({
    tenantId: 't',
    threadId: 'th',
    name,
    at: '2025-01-01T00:00:00Z',
    details,
  });
  it('takes the latest injection per artifact and knows which turns rehydrated', () => {
    const events = [
      event('compaction_rehydrated', { artifactId: 'b', turn: 2 }),
      event('compaction_rehydrated', { artifactId: 'a', turn: 5 }),
      event('compaction_rehydrated', { artifactId: 'b', turn: 4 }),
      event('compaction_rehydration_blocked', { artifactId: 'c', turn: 6, reason: 'cooldown' }),
      event('compaction_rehydrated', { artifactId: 'd' }),
    ];
    expect(rehydrationStateFromLifecycle(events)).toEqual({ injectedAtTurn: { a: 5, b: 4 } });
    expect(rehydrationHappenedInTurn(events, 4)).toBe(true);
    expect(rehydrationHappenedInTurn(events, 6)).toBe(false);
    expect(lifecycleRecordKey(events[1]!)).not.toBe(lifecycleRecordKey(events[2]!));
    expect(lifecycleRecordKey(events[1]!)).toBe(lifecycleRecordKey({ ...events[1]!, at: 'later' }));
  });
});

describe('quality metrics (ADR-0195)', () => {
  it('the canary: asking to be told again', () => {
    expect(askedForContext("What was the user's budget again?")).toBe(true);
    expect(askedForContext('What was the budget again?')).toBe(true);
    expect(askedForContext('Could you remind me which region we chose?')).toBe(true);
    expect(askedForContext("I don't have the ticket number from earlier.")).toBe(true);
    expect(askedForContext('The budget is $1000 and the region is eu-west-3.')).toBe(false);
  });

  it('counts after the compaction only', () => {
    const { thread } = threadBuilder('th')
      .user('The budget is $1000.')
      .assistant('Could you remind me of the budget?')
      .user('Next step.')
      .assistant('Done.', { toolCalls: [{ id: 'r1', name: 'read_artifact', input: { artifact_id: 'x' } }] })
      .toolResult('r1', 'content')
      .user('And?')
      .assistant('What was the budget again?')
      .build();
    const compactedAtSeq = thread.messages[1]!.seq;
    expect(compactionQualityMetrics(thread, { compactedAtSeq, automaticRehydrations: 2 })).toEqual({
      turnsSinceCompaction: 2,
      agentAskedForContext: true,
      askedForContextCount: 1,
      rehydrationRequests: 3,
      taskCompletionSuccess: undefined,
    });
    expect(
      compactionQualityMetrics(thread, { compactedAtSeq: null, taskCompletionSuccess: true }),
    ).toMatchObject({
      turnsSinceCompaction: null,
      agentAskedForContext: false,
      taskCompletionSuccess: true,
    });
  });
});
