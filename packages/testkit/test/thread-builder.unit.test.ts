import { CompactorError, storedEventSchema } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { threadBuilder } from '../src/thread-builder.js';

describe('threadBuilder', () => {
  it('builds valid events and the folded thread, with ids and times from positions', () => {
    const { events, thread } = threadBuilder('t1')
      .system('be brief')
      .user('read the config')
      .assistant('reading', { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.json' } }] })
      .toolResult('c1', '{"port": 8080}', { keyFields: { port: 8080 }, durability: 'replayable' })
      .assistant('the port is 8080')
      .build();
    for (const event of events) expect(storedEventSchema.parse(event)).toEqual(event);
    expect(events.map((event) => [event.eventId, event.seq, event.timestamp])).toEqual([
      ['t1-e1', 1, '2025-01-01T00:00:01.000Z'],
      ['t1-e2', 2, '2025-01-01T00:00:02.000Z'],
      ['t1-e3', 3, '2025-01-01T00:00:03.000Z'],
      ['t1-e4', 4, '2025-01-01T00:00:04.000Z'],
      ['t1-e5', 5, '2025-01-01T00:00:05.000Z'],
      ['t1-e6', 6, '2025-01-01T00:00:06.000Z'],
    ]);
    expect(thread.messages.map((message) => [message.id, message.role, message.turn])).toEqual([
      ['m1', 'system', 0],
      ['m2', 'user', 1],
      ['m3', 'assistant', 1],
      ['m4', 'tool', 1],
      ['m5', 'assistant', 1],
    ]);
    expect(thread.messages[3]!.content).toEqual([
      {
        type: 'tool_result',
        toolName: 'read_file',
        toolCallId: 'c1',
        outcome: 'success',
        content: '{"port": 8080}',
        keyFields: { port: 8080 },
        durability: 'replayable',
      },
    ]);
  });

  it('numbers tool calls it is not given ids for, and names results after their call', () => {
    const { thread } = threadBuilder()
      .user('go')
      .assistant(undefined, {
        reasoning: 'plan',
        toolCalls: [{ name: 'ls' }, { name: 'bash', input: { cmd: 'pwd' } }],
      })
      .toolResult('call_2', '/home', { outcome: 'failure' })
      .build();
    expect(thread.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'plan' },
      { type: 'tool_call', id: 'call_1', name: 'ls', input: {} },
      { type: 'tool_call', id: 'call_2', name: 'bash', input: { cmd: 'pwd' } },
    ]);
    expect(thread.messages[2]!.content[0]).toMatchObject({ toolName: 'bash', outcome: 'failure' });
  });

  it('refuses a result for an unknown call unless told the tool name', () => {
    let thrown: unknown;
    try {
      threadBuilder().user('go').toolResult('nope', 'x');
    } catch (error) {
      thrown = error;
    }
    expect(CompactorError.hasCode(thrown, 'validation')).toBe(true);
    const { thread } = threadBuilder().user('go').toolResult('nope', 'x', { toolName: 'ls' }).build();
    expect(thread.messages[1]!.content[0]).toMatchObject({ toolName: 'ls', toolCallId: 'nope' });
  });

  it('sets message flags, thread settings and raw events', () => {
    const { thread } = threadBuilder('t2', {
      tenantId: 'acme',
      model: 'gpt-4o',
      contextWindow: 128_000,
      maxOutputTokens: 4_096,
      policy: { keepRecentTurns: 7 },
    })
      .user('reminder', { synthetic: true, id: 'r1' })
      .user('keep this', { pinned: true, metadata: { source: 'operator' } })
      .user('sub', { subagentId: 'agent-1' })
      .event({ type: 'lifecycle', name: 'compaction_completed', details: {} })
      .build();
    expect([thread.tenantId, thread.model, thread.contextWindow, thread.maxOutputTokens]).toEqual([
      'acme',
      'gpt-4o',
      128_000,
      4_096,
    ]);
    expect(thread.policy.keepRecentTurns).toBe(7);
    expect(thread.version).toBe(5);
    expect(
      thread.messages.map(({ id, synthetic, pinned, subagentId, metadata }) => ({
        id,
        synthetic,
        pinned,
        subagentId,
        metadata,
      })),
    ).toEqual([
      { id: 'r1', synthetic: true, pinned: undefined, subagentId: undefined, metadata: undefined },
      {
        id: 'm2',
        synthetic: undefined,
        pinned: true,
        subagentId: undefined,
        metadata: { source: 'operator' },
      },
      { id: 'm3', synthetic: undefined, pinned: undefined, subagentId: 'agent-1', metadata: undefined },
    ]);
  });

  it('returns copies, so a built fixture can be changed without touching the builder', () => {
    const builder = threadBuilder().user('one');
    const first = builder.build();
    first.events.pop();
    const second = builder.assistant('two').build();
    expect(second.events).toHaveLength(3);
    expect(second.thread.messages.map((message) => message.id)).toEqual(['m1', 'm2']);
  });
});
