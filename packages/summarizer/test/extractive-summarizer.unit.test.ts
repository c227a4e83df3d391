import {
  foldThread,
  type Message,
  mergeSummaries,
  renderSummary,
  type StoredEvent,
  spanOf,
  type Thread,
} from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../src/index.js';

function threadOf(messages: Message[]): Thread {
  const base = { tenantId: 't', threadId: 'th', timestamp: '2026-01-01T00:00:00.000Z' };
  const events: StoredEvent[] = [
    {
      ...base,
      eventId: 'e0',
      seq: 1,
      type: 'thread.created',
      model: 'claude-sonnet-4-5',
      contextWindow: 200000,
    },
    ...messages.map((message, index) => ({
      ...base,
      eventId: `e${index + 1}`,
      seq: index + 2,
      type: 'message.appended' as const,
      message,
    })),
  ];
  return foldThread(events);
}

const user = (id: string, text: string, extra: Partial<Message> = {}): Message => ({
  id,
  role: 'user',
  content: [{ type: 'text', text }],
  ...extra,
});
const assistant = (
  id: string,
  text: string,
  calls: Array<{ id: string; name: string; input: unknown }> = [],
): Message => ({
  id,
  role: 'assistant',
  content: [
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...calls.map((call) => ({ type: 'tool_call' as const, ...call })),
  ],
});
const toolResult = (
  id: string,
  toolCallId: string,
  toolName: string,
  content: string | Record<string, unknown>,
  outcome: 'success' | 'failure' = 'success',
  keyFields: Record<string, unknown> = {},
): Message => ({
  id,
  role: 'tool',
  content: [{ type: 'tool_result', toolCallId, toolName, outcome, content, keyFields }],
});

const thread = threadOf([
  user(
    'u1',
    'Port the parser to TypeScript. Never touch the generated files in gen/. Tests must pass before you commit.',
  ),
  assistant('a1', "I'll read the parser first because the grammar drives everything.", [
    { id: 'c1', name: 'read', input: { path: 'src/parser.py' } },
  ]),
  toolResult('r1', 'c1', 'read', 'def parse(): ...'),
  assistant('a2', '', [{ id: 'c2', name: 'bash', input: { command: 'npm test' } }]),
  toolResult('r2', 'c2', 'bash', 'Error: cannot find module parser\nmore', 'failure'),
  assistant('a3', 'The root cause is a missing export in index.ts.', [
    { id: 'c3', name: 'edit', input: { path: 'src/index.ts', oldText: 'a', newText: 'b' } },
  ]),
  toolResult('r3', 'c3', 'edit', 'ok'),
  assistant('a4', '', [{ id: 'c4', name: 'create_order', input: { sku: 'X' } }]),
  toolResult(
    'r4',
    'c4',
    'create_order',
    { order_id: 'ORD-42', status: 'created', noise: 'x'.repeat(50) },
    'success',
    {
      order_id: 'ORD-42',
    },
  ),
  user('u2', 'Now add the CLI wrapper.'),
  assistant('a5', 'Next steps:\n- write src/cli.ts\n- wire it into package.json'),
]);

describe('extractive summarizer', () => {
  const summarizer = createExtractiveSummarizer();
  const request = { tenantId: 't', threadId: 'th', span: spanOf(thread.messages), messages: thread.messages };

  it('pins the user constraints verbatim', () => {
    const summary = summarizer.extract(request);
    const pinned = summary.facts.filter((fact) => fact.pinned).map((fact) => fact.text);
    expect(pinned).toContain('User constraint (turn 1): Never touch the generated files in gen/.');
    expect(pinned).toContain('User constraint (turn 1): Tests must pass before you commit.');
    expect(pinned.some((text) => text.includes('Port the parser'))).toBe(false);
  });

  it('keeps each request and the latest one as the current task', () => {
    const summary = summarizer.extract(request);
    expect(summary.facts.map((fact) => fact.text)).toContain(
      'User request (turn 2): Now add the CLI wrapper.',
    );
    expect(summary.currentTask).toBe('Now add the CLI wrapper.');
    expect(summary.currentPlan).toEqual(['write src/cli.ts', 'wire it into package.json']);
  });

  it('lists files read and modified from tool arguments', () => {
    const summary = summarizer.extract(request);
    expect(summary.filesRead).toEqual(['src/parser.py']);
    expect(summary.filesModified).toEqual(['src/index.ts']);
  });

  it('copies key fields structurally and records commands with their outcomes', () => {
    const summary = summarizer.extract(request);
    const order = summary.toolOutcomes.find((outcome) => outcome.toolName === 'create_order');
    expect(order?.keyFields).toEqual({ order_id: 'ORD-42' });
    const command = summary.toolOutcomes.find((outcome) => outcome.toolCallId === 'c2');
    expect(command).toMatchObject({ outcome: 'failure', keyFields: { command: 'npm test' } });
    expect(command?.errorMessage).toContain('Error: cannot find module parser');
  });

  it('copies fields the durability policy names from structured results', () => {
    const summary = summarizer.extract({
      ...request,
      toolDurability: {
        defaultDurability: 'anchoring',
        overrides: { create_order: { durability: 'anchoring', mustPreserveFields: ['status'] } },
      },
    });
    const order = summary.toolOutcomes.find((outcome) => outcome.toolName === 'create_order');
    expect(order?.keyFields).toEqual({ order_id: 'ORD-42', status: 'created' });
  });

  it('turns a failure no later call fixed into an open item', () => {
    const summary = summarizer.extract(request);
    expect(summary.openItems.map((item) => item.description)).toEqual([
      'Unresolved bash failure (npm test): Error: cannot find module parser',
    ]);
  });

  it('records decisions the assistant stated', () => {
    const summary = summarizer.extract(request);
    expect(summary.decisions.map((decision) => decision.decision)).toEqual([
      "I'll read the parser first because the grammar drives everything.",
      'The root cause is a missing export in index.ts.',
    ]);
  });

  it('stamps a decision with the time of the message it came from (Decision.timestamp)', () => {
    const dated = threadOf([
      user('u1', 'Fix the parser.'),
      {
        ...assistant('a1', 'We decided to switch to a hand-written lexer.'),
        createdAt: '2026-03-04T05:06:07.000Z',
      },
      assistant('a2', 'I will rerun the tests because the lexer changed.'),
    ]);
    const summary = summarizer.extract({ ...request, messages: dated.messages });
    expect(summary.decisions.map((decision) => [decision.decision, decision.timestamp])).toEqual([
      ['We decided to switch to a hand-written lexer.', '2026-03-04T05:06:07.000Z'],
      ['I will rerun the tests because the lexer changed.', undefined],
    ]);
    // Not rendered: the prompt bytes do not depend on it.
    expect(renderSummary(summary)).not.toContain('2026-03-04');
  });

  it('keeps every pinned fact of the previous summary when chaining', () => {
    const first = summarizer.extract({ ...request, messages: thread.messages.slice(0, 3) });
    const second = summarizer.extract({
      ...request,
      messages: thread.messages.slice(9),
      previousSummary: first,
    });
    for (const fact of first.facts.filter((candidate) => candidate.pinned)) {
      expect(second.facts).toContainEqual(fact);
    }
    expect(second).toEqual(
      mergeSummaries(first, summarizer.extract({ ...request, messages: thread.messages.slice(9) })),
    );
  });

  it('is deterministic', async () => {
    const once = renderSummary((await summarizer.summarize(request)).summary);
    const twice = renderSummary((await summarizer.summarize(request)).summary);
    expect(once).toBe(twice);
  });
});
