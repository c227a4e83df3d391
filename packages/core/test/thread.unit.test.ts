import { describe, expect, it } from 'vitest';
import {
  buildToolPairIndex,
  CompactorError,
  closeOverToolPairs,
  countUserTurns,
  foldMore,
  foldThread,
  isSynthetic,
  isTurnStart,
  type StoredEvent,
  snapToTurnStart,
  turnRanges,
} from '../src/index.js';
import { threadBuilder } from './support/testkit.js';

/** A thread with a preamble, synthetic and subagent messages, and tool calls: the shapes folding must handle. */
function sampleThread() {
  return threadBuilder('t1', { policy: { keepRecentTurns: 5 } })
    .system('you are helpful') // m1, preamble
    .user('summary of earlier work', { synthetic: true }) // m2, preamble
    .user('order a book') // m3, turn 1
    .assistant('ordering', { toolCalls: [{ id: 'c1', name: 'create_order', input: { sku: 'B1' } }] }) // m4
    .toolResult('c1', { orderId: 'A-17' }, { keyFields: { orderId: 'A-17' } }) // m5
    .user('look it up', { subagentId: 'agent-1' }) // m6, subagent: not a turn
    .assistant('found it', { subagentId: 'agent-1' }) // m7
    .user('remember: be brief', { synthetic: true }) // m8, reminder: not a turn
    .assistant('done') // m9
    .user('and a pen') // m10, turn 2
    .assistant('ok'); // m11
}

describe('foldThread', () => {
  it('folds messages in order with their seq, index and turn', () => {
    const { events, thread } = sampleThread().build();
    expect(thread.id).toBe('t1');
    expect(thread.tenantId).toBe('tenant-1');
    expect(thread.model).toBe('claude-sonnet-4-5');
    expect(thread.contextWindow).toBe(200_000);
    expect(thread.createdAt).toBe(events[0]!.timestamp);
    expect(thread.version).toBe(events.length);
    expect(thread.messages.map((message) => message.id)).toEqual([
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
      'm7',
      'm8',
      'm9',
      'm10',
      'm11',
    ]);
    expect(thread.messages.map((message) => message.turn)).toEqual([0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2]);
    expect(thread.messages.map((message) => message.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(thread.messages.map((message) => message.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('parses the policy of thread.created, with defaults for what it leaves out', () => {
    const { thread } = sampleThread().build();
    expect(thread.policy.keepRecentTurns).toBe(5);
    expect(thread.policy.keepRecentTokens).toBe(20000);
    const plain = threadBuilder('t2').build().thread;
    expect(plain.policy.keepRecentTurns).toBe(3);
    expect(plain.messages).toEqual([]);
  });

  it('ignores plan, lifecycle and branch events for messages but advances the version', () => {
    const { thread } = threadBuilder('t1')
      .user('hi')
      .event({ type: 'thread.branched', sourceThreadId: 't0', fromMessageId: 'm7', sourceVersion: 9 })
      .event({ type: 'plan.committed', planVersion: 1, basedOnSeq: 2, tokensBefore: 10, tokensAfter: 5 })
      .event({ type: 'lifecycle', name: 'compaction_completed', details: {} })
      .build();
    expect(thread.messages.map((message) => message.id)).toEqual(['m1']);
    expect(thread.version).toBe(5);
    expect(thread.branchedFrom).toEqual({ sourceThreadId: 't0', fromMessageId: 'm7', sourceVersion: 9 });
  });

  it('rejects a log that does not start with thread.created', () => {
    const { events } = sampleThread().build();
    expect(() => foldThread(events.slice(1))).toThrowError(/thread.created/);
    expect(() => foldThread([])).toThrowError(/thread.created/);
    try {
      foldThread([]);
    } catch (error) {
      expect(CompactorError.hasCode(error, 'validation')).toBe(true);
    }
  });

  it('rejects events out of order and duplicate message ids', () => {
    const { events } = sampleThread().build();
    const swapped = [events[0]!, events[2]!, events[1]!, ...events.slice(3)];
    expect(() => foldThread(swapped)).toThrowError(/out of order/);
    const repeated = [...events, { ...events[3]!, seq: events.length + 1 } as StoredEvent];
    expect(() => foldThread(repeated)).toThrowError(/appears twice/);
  });
});

describe('foldMore', () => {
  it('gives the same thread as folding everything at once, and skips events already folded', () => {
    const { events, thread } = sampleThread().build();
    for (const split of [1, 4, 8, events.length]) {
      const head = foldThread(events.slice(0, split));
      expect(foldMore(head, events.slice(split))).toEqual(thread);
      // Replaying the overlap is harmless: those sequence numbers are already folded in.
      expect(foldMore(head, events.slice(1))).toEqual(thread);
    }
  });

  it('does not change the thread it extends', () => {
    const { events } = sampleThread().build();
    const head = foldThread(events.slice(0, 4));
    const before = structuredClone(head);
    foldMore(head, events.slice(4));
    expect(head).toEqual(before);
  });

  it('rejects a message id already in the thread', () => {
    const { events } = sampleThread().build();
    const head = foldThread(events);
    const again = { ...events[3]!, seq: events.length + 1 } as StoredEvent;
    expect(() => foldMore(head, [again])).toThrowError(/appears twice/);
  });
});

describe('turns', () => {
  it('counts only real, root-level user messages as turn starts', () => {
    expect(isTurnStart({ role: 'user' })).toBe(true);
    expect(isTurnStart({ role: 'user', synthetic: true })).toBe(false);
    expect(isTurnStart({ role: 'user', subagentId: 'agent-1' })).toBe(false);
    expect(isTurnStart({ role: 'assistant' })).toBe(false);
    expect(isTurnStart({ role: 'system' })).toBe(false);
    expect(isSynthetic({ synthetic: true })).toBe(true);
    expect(isSynthetic({})).toBe(false);
    const { thread } = sampleThread().build();
    expect(countUserTurns(thread.messages)).toBe(2);
  });

  it('lists turn ranges, with the preamble as turn 0 only when it has messages', () => {
    const { thread } = sampleThread().build();
    expect(turnRanges(thread.messages)).toEqual([
      { turn: 0, start: 0, end: 2 },
      { turn: 1, start: 2, end: 9 },
      { turn: 2, start: 9, end: 11 },
    ]);
    const noPreamble = threadBuilder().user('a').assistant('b').user('c').build().thread;
    expect(turnRanges(noPreamble.messages)).toEqual([
      { turn: 1, start: 0, end: 2 },
      { turn: 2, start: 2, end: 3 },
    ]);
    expect(turnRanges([])).toEqual([]);
  });

  it('snaps a cut forward to the next turn start ([u1, a1, u2, a2, a3, u3, a3], ADR-0012)', () => {
    // [u1, a1, u2, a2, | a3, u3, a3]: the cut lands on a3 in the middle of turn 2 and moves to u3.
    const { thread } = threadBuilder()
      .user('u1')
      .assistant('a1')
      .user('u2')
      .assistant('a2')
      .assistant('a3')
      .user('u3')
      .assistant('a3')
      .build();
    expect(snapToTurnStart(thread.messages, 4)).toBe(5);
    expect(snapToTurnStart(thread.messages, 2)).toBe(2);
    expect(snapToTurnStart(thread.messages, 6)).toBe(7);
    expect(snapToTurnStart(thread.messages, -3)).toBe(0);
    expect(snapToTurnStart(thread.messages, 99)).toBe(99);
  });

  it('does not snap to synthetic or subagent user messages', () => {
    const { thread } = sampleThread().build();
    // m6 (subagent) and m8 (synthetic) are users but not turn starts: from m5 the next start is m10.
    expect(snapToTurnStart(thread.messages, 4)).toBe(9);
  });
});

describe('tool pairs', () => {
  const fixture = () =>
    threadBuilder()
      .user('go')
      .assistant(undefined, {
        toolCalls: [
          { id: 'c1', name: 'read_file' },
          { id: 'c2', name: 'bash' },
        ],
      }) // m2
      .toolResult('c1', 'file') // m3
      .toolResult('c2', 'ok') // m4
      .assistant('next', { toolCalls: [{ id: 'c3', name: 'search' }] }) // m5, never answered
      .toolResult('c9', 'stray', { toolName: 'search' }) // m6, answers no call
      .toolResult('c1', 'again') // m7, second answer to c1
      .build().thread;

  it('pairs each call with its first result and reports orphans and pending calls', () => {
    const index = buildToolPairIndex(fixture().messages);
    expect(index.byCallId.get('c1')).toEqual({
      toolCallId: 'c1',
      toolName: 'read_file',
      callMessageId: 'm2',
      resultMessageId: 'm3',
    });
    expect(index.byCallId.get('c2')?.resultMessageId).toBe('m4');
    expect(index.pendingCallIds).toEqual(['c3']);
    expect(index.orphanResultCallIds).toEqual(['c9', 'c1']);
    expect(index.callIdsByMessageId.get('m2')).toEqual(['c1', 'c2']);
    expect(index.callIdsByMessageId.get('m6')).toBeUndefined();
  });

  it('treats a result that comes before its call as an orphan', () => {
    const { thread } = threadBuilder()
      .user('go')
      .toolResult('c1', 'early', { toolName: 'bash' })
      .assistant(undefined, { toolCalls: [{ id: 'c1', name: 'bash' }] })
      .build();
    const index = buildToolPairIndex(thread.messages);
    expect(index.orphanResultCallIds).toEqual(['c1']);
    expect(index.pendingCallIds).toEqual(['c1']);
  });

  it('closes a set of messages over shared tool calls, transitively', () => {
    const index = buildToolPairIndex(fixture().messages);
    // m3 answers c1 of m2, which also made c2, answered by m4.
    expect([...closeOverToolPairs(['m3'], index)].sort()).toEqual(['m2', 'm3', 'm4']);
    expect([...closeOverToolPairs(['m5'], index)]).toEqual(['m5']);
    expect([...closeOverToolPairs(['m1'], index)]).toEqual(['m1']);
    expect([...closeOverToolPairs([], index)]).toEqual([]);
  });
});
