import { describe, expect, it } from 'vitest';
import { hasNamedSpeakers, parsePolicy, summaryBudgetFor, threadKindOf } from '../src/index.js';

const text = (role: 'user' | 'assistant', words: string, synthetic = false) => ({
  role,
  synthetic,
  content: [{ type: 'text' as const, text: words }],
});

describe('threadKindOf', () => {
  it('reads two people talking, without tools, as a dialogue', () => {
    expect(
      threadKindOf([
        text('user', '[Session 1 began at 1:56 pm on 8 May, 2023]', true),
        text('user', 'Hey Mel! I went to a support group yesterday.'),
        text('assistant', 'That sounds powerful, Caroline.'),
        text('user', 'It was. I am thinking about adoption.'),
        text('assistant', 'Wow, tell me more!'),
      ]),
    ).toBe('dialogue');
  });

  it('reads any tool call or result as a coding session', () => {
    expect(
      threadKindOf([
        text('user', 'Fix the test.'),
        {
          role: 'assistant',
          content: [{ type: 'tool_call' as const, id: 'c1', name: 'bash', input: { command: 'pnpm test' } }],
        },
        text('user', 'Thanks.'),
        text('assistant', 'Done.'),
      ]),
    ).toBe('coding');
  });

  it('reads one side only, or synthetic messages only, as other', () => {
    expect(threadKindOf([text('user', 'one'), text('user', 'two'), text('assistant', 'three')])).toBe(
      'other',
    );
    expect(threadKindOf([text('user', 'a', true), text('assistant', 'b', true)])).toBe('other');
    expect(threadKindOf([])).toBe('other');
  });
});

describe('summaryBudgetFor by kind (ADR-0160, ADR-0270)', () => {
  const policy = parsePolicy({});
  it('gives a dialogue 40% of the target, a coding session 30% and other threads 15%', () => {
    expect(summaryBudgetFor(policy, 10_000, 'dialogue')).toBe(4000);
    expect(summaryBudgetFor(policy, 10_000, 'coding')).toBe(3000);
    expect(summaryBudgetFor(policy, 10_000)).toBe(1500);
  });
  it('honours an explicit budget and the policy shares', () => {
    expect(summaryBudgetFor(parsePolicy({ summaryBudgetTokens: 900 }), 10_000, 'dialogue')).toBe(900);
    expect(summaryBudgetFor(parsePolicy({ summaryShare: { dialogue: 0.25 } }), 10_000, 'dialogue')).toBe(
      2500,
    );
  });
});

describe('hasNamedSpeakers', () => {
  it('is true only when two people are named', () => {
    const named = (speaker: string) => ({ metadata: { speaker } });
    expect(hasNamedSpeakers([named('Caroline'), named('Melanie')])).toBe(true);
    expect(hasNamedSpeakers([named('Caroline'), named('Caroline')])).toBe(false);
    expect(hasNamedSpeakers([{}, {}])).toBe(false);
    expect(hasNamedSpeakers([named('Caroline'), { synthetic: true, metadata: { speaker: 'harness' } }])).toBe(
      false,
    );
  });
});
