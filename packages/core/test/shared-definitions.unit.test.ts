import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import {
  ACTION_PRECEDENCE,
  byPrecedence,
  type ClearRecord,
  type CompactionRecord,
  clearability,
  compactionPlanSchema,
  messagesAsRendered,
  normalizePlan,
  protectedTail,
  spanOf,
  structuredSummarySchema,
  type ToolResultEnvelope,
  toolDurabilityPolicySchema,
} from '../src/index.js';

describe('protectedTail', () => {
  const turns = (...tokens: number[]) => tokens.map((count, index) => ({ turn: index + 1, tokens: count }));
  const options = { keepRecentTurns: 1, keepRecentTokens: 150, lastTurn: 3, shrinkAbove: Infinity };

  it('covers the longest suffix within keepRecentTokens, by whole turns (turns of 100/60/100, keep 150)', () => {
    expect(protectedTail(turns(100, 60, 100), options)).toEqual({ start: 2, rule: 'recent-turns' });
  });

  it('extends the last keepRecentTurns turns by whole turns to cover that suffix', () => {
    const units = [
      { turn: 1, tokens: 100 },
      { turn: 2, tokens: 40 },
      { turn: 2, tokens: 40 },
      { turn: 3, tokens: 50 },
    ];
    expect(protectedTail(units, { ...options, keepRecentTokens: 95 }).start).toBe(1);
    expect(protectedTail(units, { ...options, keepRecentTokens: 10 }).start).toBe(3);
    expect(protectedTail(units, { ...options, keepRecentTurns: 0, keepRecentTokens: 0 }).start).toBe(3);
  });

  it('never protects the preamble by turn count alone', () => {
    const units = [{ turn: 0, tokens: 10 }, ...turns(10, 10)];
    expect(
      protectedTail(units, { ...options, keepRecentTurns: 5, keepRecentTokens: 0, lastTurn: 2 }).start,
    ).toBe(1);
  });

  it('shrinks to the token suffix when the turn tail holds more than shrinkAbove (a long agent turn)', () => {
    const longTurn = Array.from({ length: 10 }, () => ({ turn: 1, tokens: 100 }));
    const tail = protectedTail(longTurn, {
      ...options,
      keepRecentTokens: 250,
      lastTurn: 1,
      shrinkAbove: 500,
    });
    expect(tail).toEqual({ start: 8, rule: 'recent-tokens' });
    expect(protectedTail(longTurn, { ...options, lastTurn: 1, shrinkAbove: 1_000 }).start).toBe(0);
  });

  it('moves the edge back to tool partners', () => {
    const tail = protectedTail(turns(10, 10, 10), { ...options, keepRecentTokens: 0, withPartners: () => 1 });
    expect(tail.start).toBe(1);
  });
});

describe('ACTION_PRECEDENCE drives normalization', () => {
  const thread = threadBuilder('p').user('a').assistant('b').build().thread;
  const span = spanOf(thread.messages);
  const summary = structuredSummarySchema.parse({});
  const records: CompactionRecord[] = [
    { kind: 'clear', span, preserved: [] },
    { kind: 'summarize', span, summary, summaryTokenCount: 0, round: 1 },
    { kind: 'drop', span, reason: 'old' },
    { kind: 'externalize', span, artifactId: 'a', summary, rehydrateHint: '', sensitivity: 'internal' },
  ];

  it('orders records strongest first by ACTION_PRECEDENCE, keeping ties in order', () => {
    const ordered = byPrecedence(records).map((record) => ACTION_PRECEDENCE[record.kind]);
    expect(ordered).toEqual([...ordered].sort((left, right) => right - left));
    const clearRecord = records[0] as ClearRecord;
    const clears: CompactionRecord[] = [clearRecord, { ...clearRecord, preserved: [] }];
    expect(byPrecedence(clears)).toEqual(clears);
    expect(byPrecedence(clears)[0]).toBe(clears[0]);
  });

  it('gives each message to its strongest record', () => {
    const plan = compactionPlanSchema.parse({
      threadId: 'p',
      version: 1,
      basedOnSeq: 2,
      createdAt: 'now',
      clearings: [records[0]],
      summarizations: [records[1]],
      drops: [records[2]],
      externalizations: [records[3]],
    });
    expect(normalizePlan(plan).records.map((record) => record.kind)).toEqual(['drop']);
  });
});

describe('clearability', () => {
  const policy = toolDurabilityPolicySchema.parse({});
  const result = (durability: ToolResultEnvelope['durability'], hash?: string): ToolResultEnvelope => ({
    toolName: 'read',
    toolCallId: 'c',
    outcome: 'success',
    content: 'x',
    keyFields: {},
    durability,
    ...(hash ? { determinism: { contentHash: hash } } : {}),
  });

  it('clears ephemeral and anchoring results, never non-replayable ones', () => {
    expect(clearability(result('ephemeral'), policy)?.order).toBe(0);
    expect(clearability(result('anchoring'), policy)?.order).toBe(2);
    expect(clearability(result('non_replayable'), policy)).toBeUndefined();
  });

  it('clears a replayable result only when its source is proven unchanged', () => {
    expect(clearability(result('replayable', 'h1'), policy)).toBeUndefined();
    expect(clearability(result('replayable', 'h1'), policy, () => ({ contentHash: 'h2' }))).toBeUndefined();
    expect(clearability(result('replayable', 'h1'), policy, () => ({ contentHash: 'h1' }))?.order).toBe(1);
  });
});

describe('messagesAsRendered', () => {
  it('shows a summarized or externalized span as one assistant message with its stand-in text', () => {
    const { thread } = threadBuilder('s').user('first').assistant('second').user('third').build();
    const [first, second] = thread.messages;
    const summary = structuredSummarySchema.parse({ facts: [{ text: 'it was said' }] });
    const plan = compactionPlanSchema.parse({
      threadId: 's',
      version: 1,
      basedOnSeq: 3,
      createdAt: 'now',
      summarizations: [{ kind: 'summarize', span: spanOf([first!, second!]), summary, summaryTokenCount: 1 }],
    });
    const shown = messagesAsRendered(
      thread,
      thread.messages,
      normalizePlan(plan),
      toolDurabilityPolicySchema.parse({}),
    );
    expect(shown.map((message) => message.role)).toEqual(['assistant', 'user']);
    const text = shown[0]!.content[0]!;
    expect(text.type === 'text' && text.text.startsWith('[Context Summary - Turns 1-1]')).toBe(true);
    expect(text.type === 'text' && text.text).toContain('it was said');
  });
});
