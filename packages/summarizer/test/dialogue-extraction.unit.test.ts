import {
  foldThread,
  type Message,
  renderSummary,
  type StoredEvent,
  spanOf,
  trimSummaryToBudget,
} from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../src/index.js';

function threadOf(messages: Message[]) {
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

const said = (
  id: string,
  role: 'user' | 'assistant',
  speaker: string,
  text: string,
  createdAt = '2023-05-08T13:56:00.000Z',
  extra: Partial<Message> = {},
): Message => ({ id, role, createdAt, metadata: { speaker }, content: [{ type: 'text', text }], ...extra });

/** A hand-made two-person dialogue: small talk around a few informative turns from both speakers. */
const dialogue: Message[] = [
  {
    id: 's1',
    role: 'user',
    synthetic: true,
    createdAt: '2023-05-08T13:56:00.000Z',
    content: [{ type: 'text', text: '[Session 1 began at 1:56 pm on 8 May, 2023]' }],
  },
  said('d1', 'user', 'Caroline', 'Hey Mel! Good to see you!'),
  said('d2', 'assistant', 'Melanie', 'Hey Caroline! How are you doing?'),
  said('d3', 'user', 'Caroline', 'I went to an LGBTQ support group yesterday and it was so powerful.'),
  said('d4', 'assistant', 'Melanie', 'That must have been awesome.'),
  said(
    'd5',
    'assistant',
    'Melanie',
    'I ran a charity race for mental health last Saturday with my kids, Luna and Oliver.',
  ),
  said('d6', 'user', 'Caroline', 'Keep it up!'),
  said('d7', 'user', 'Caroline', 'Thanks!'),
  {
    id: 'd8',
    role: 'assistant',
    createdAt: '2023-07-20T10:00:00.000Z',
    metadata: { speaker: 'Melanie', blipCaption: 'a painting of a sunset over a lake' },
    content: [
      { type: 'text', text: 'Here is what I painted.' },
      { type: 'image', mediaType: 'image/jpeg', source: { kind: 'url', url: 'https://example.com/p.jpg' } },
    ],
  },
  said('d9', 'user', 'Caroline', 'From now on, call me Caro.', '2023-07-20T10:05:00.000Z'),
  said('d10', 'assistant', 'Melanie', 'Sure thing, Caro!', '2023-07-20T10:06:00.000Z'),
];

describe('extractive summarizer on a dialogue (ADR-0160)', () => {
  const thread = threadOf(dialogue);
  const summarizer = createExtractiveSummarizer();
  const request = { tenantId: 't', threadId: 'th', span: spanOf(thread.messages), messages: thread.messages };

  it("keeps both speakers' informative turns with speaker and session date, and captions", () => {
    const texts = summarizer.extract(request).facts.map((fact) => fact.text);
    expect(texts).toContain(
      'Caroline (8 May 2023): I went to an LGBTQ support group yesterday and it was so powerful.',
    );
    expect(texts).toContain(
      'Melanie (8 May 2023): I ran a charity race for mental health last Saturday with my kids, Luna and Oliver.',
    );
    expect(texts).toContain(
      'Melanie (20 July 2023): Here is what I painted. [image: a painting of a sunset over a lake]',
    );
  });

  it('neither keeps nor pins small talk; pins only the standing instruction', () => {
    const summary = summarizer.extract(request);
    const texts = summary.facts.map((fact) => fact.text).join('\n');
    for (const smallTalk of ['That must have been awesome.', 'Keep it up!', 'Thanks!', 'Good to see you'])
      expect(texts).not.toContain(smallTalk);
    expect(summary.facts.filter((fact) => fact.pinned).map((fact) => fact.text)).toEqual([
      'User instruction (turn 5): From now on, call me Caro.',
    ]);
    expect(summary.currentTask).toBeNull();
    expect(summary.decisions).toEqual([]);
  });

  it('scores the turns so a trim keeps the informative ones from every part of the dialogue', () => {
    const summary = summarizer.extract(request);
    const turns = summary.facts.filter((fact) => !fact.pinned);
    expect(turns.every((fact) => typeof fact.score === 'number')).toBe(true);
    const countText = (text: string) => Math.ceil(text.length / 4);
    const budget = countText(renderSummary(summary)) - 20;
    const trimmed = trimSummaryToBudget(summary, budget, countText);
    const kept = trimmed.facts.map((fact) => fact.text);
    expect(kept).toContain('User instruction (turn 5): From now on, call me Caro.');
    expect(kept.some((text) => text.includes('LGBTQ support group'))).toBe(true);
    expect(kept.some((text) => text.includes('charity race'))).toBe(true);
  });

  it('a coding session is still summarized as one (requests, files, tool outcomes)', () => {
    const coding = threadOf([
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'Fix the failing parser test.' }] },
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'pnpm test' } }],
      },
      {
        id: 't1',
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: 'c1',
            toolName: 'bash',
            outcome: 'failure',
            keyFields: {},
            content: 'Error: boom',
          },
        ],
      },
      { id: 'u2', role: 'user', content: [{ type: 'text', text: 'Keep going.' }] },
      { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'On it.' }] },
    ]);
    const summary = summarizer.extract({
      tenantId: 't',
      threadId: 'th',
      span: spanOf(coding.messages),
      messages: coding.messages,
    });
    expect(summary.currentTask).toBe('Keep going.');
    expect(summary.toolOutcomes.some((outcome) => outcome.errorMessage?.includes('Error: boom'))).toBe(true);
  });
});

describe('extractive summarizer on a long coding session (ADR-0160)', () => {
  it('groups repeated calls per file and command, counted, and caps the lines so the summary stays small', () => {
    const messages: Message[] = [
      { id: 'u0', role: 'user', content: [{ type: 'text', text: 'Refactor the renderer.' }] },
    ];
    for (let index = 0; index < 300; index += 1) {
      const path = `src/file-${index % 60}.ts`;
      messages.push(
        {
          id: `a${index}`,
          role: 'assistant',
          content: [
            { type: 'tool_call', id: `c${index}`, name: 'edit', input: { path, oldText: 'a', newText: 'b' } },
          ],
        },
        {
          id: `t${index}`,
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              toolCallId: `c${index}`,
              toolName: 'edit',
              outcome: index === 299 ? 'failure' : 'success',
              content: index === 299 ? 'Error: oldText not found' : 'ok',
              keyFields: { path },
            },
          ],
        },
      );
    }
    const thread = threadOf(messages);
    const summary = createExtractiveSummarizer({ maxToolOutcomes: 20 }).extract({
      tenantId: 't',
      threadId: 'th',
      span: spanOf(thread.messages),
      messages: thread.messages,
    });
    // Every file is listed once as modified; a successful edit's line would only repeat the list
    // (ADR-0271), so the one line left is the failing edit, with its error, standing for five calls.
    expect(summary.filesModified).toHaveLength(60);
    expect(summary.toolOutcomes).toHaveLength(1);
    expect(summary.toolOutcomes[0]).toMatchObject({
      outcome: 'failure',
      keyFields: { path: 'src/file-59.ts' },
      count: 5,
    });
    expect(summary.toolOutcomes[0]?.errorMessage).toContain('oldText not found');
    expect(renderSummary(summary)).toContain(
      '- edit (failure ×5) {"path":"src/file-59.ts"} error: Error: oldText not found',
    );
  });

  it('groups repeated commands, counted, and caps the lines with the unresolved failure kept', () => {
    const messages: Message[] = [
      { id: 'u0', role: 'user', content: [{ type: 'text', text: 'Make every package build.' }] },
    ];
    for (let index = 0; index < 300; index += 1) {
      const command = `pnpm --filter pkg-${index % 60} build`;
      const failing = index === 299;
      messages.push(
        {
          id: `a${index}`,
          role: 'assistant',
          content: [{ type: 'tool_call', id: `c${index}`, name: 'bash', input: { command } }],
        },
        {
          id: `t${index}`,
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              toolCallId: `c${index}`,
              toolName: 'bash',
              outcome: failing ? 'failure' : 'success',
              content: failing ? 'error TS2304: Cannot find name Foo' : 'built',
              keyFields: {},
            },
          ],
        },
      );
    }
    const thread = threadOf(messages);
    const summary = createExtractiveSummarizer({ maxToolOutcomes: 20, maxCommands: 300 }).extract({
      tenantId: 't',
      threadId: 'th',
      span: spanOf(thread.messages),
      messages: thread.messages,
    });
    expect(summary.toolOutcomes).toHaveLength(20);
    // Every line stands for the five runs of its command; the last one failed and is kept with its error.
    expect(summary.toolOutcomes.every((outcome) => outcome.count === 5)).toBe(true);
    expect(renderSummary(summary)).toContain(
      '- bash (failure ×5) $ pnpm --filter pkg-59 build error: error TS2304: Cannot find name Foo',
    );
  });
});
