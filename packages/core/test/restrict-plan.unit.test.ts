import { describe, expect, it } from 'vitest';
import { compactionPlanSchema, restrictPlanToMessages, structuredSummarySchema } from '../src/index.js';

const summary = structuredSummarySchema.parse({});
const plan = compactionPlanSchema.parse({
  threadId: 'source',
  version: 3,
  basedOnSeq: 40,
  createdAt: '2025-01-01T00:00:00.000Z',
  summarizations: [
    {
      kind: 'summarize',
      span: { messageIds: ['m1', 'm2'], firstTurn: 1, lastTurn: 1 },
      summary,
      summaryTokenCount: 5,
    },
    {
      kind: 'summarize',
      span: { messageIds: ['m5', 'm6'], firstTurn: 3, lastTurn: 3 },
      summary,
      summaryTokenCount: 5,
    },
  ],
  clearings: [
    {
      kind: 'clear',
      span: { messageIds: ['m3', 'm7'], firstTurn: 2, lastTurn: 4 },
      preserved: [
        { messageId: 'm3', toolCallId: 'c3', toolName: 'read', outcome: 'success' },
        { messageId: 'm7', toolCallId: 'c7', toolName: 'read', outcome: 'success' },
      ],
    },
  ],
  drops: [{ kind: 'drop', span: { messageIds: ['m4'], firstTurn: 2, lastTurn: 2 }, reason: 'stale' }],
});
const target = { threadId: 'branch', basedOnSeq: 12, createdAt: '2025-02-02T00:00:00.000Z' };

describe('restrictPlanToMessages', () => {
  it('keeps records wholly present, cuts clearings down, and re-addresses the plan', () => {
    const present = new Map([
      ['m1', 1],
      ['m2', 1],
      ['m3', 2],
      ['m4', 2],
      ['m5', 3],
    ]);
    const restricted = restrictPlanToMessages(plan, present, target)!;
    expect(restricted).toMatchObject({
      threadId: 'branch',
      version: 0,
      basedOnSeq: 12,
      createdAt: target.createdAt,
    });
    expect(restricted.summarizations.map((record) => record.span.messageIds)).toEqual([['m1', 'm2']]);
    expect(restricted.drops).toEqual(plan.drops);
    expect(restricted.clearings).toEqual([
      {
        ...plan.clearings[0],
        span: { messageIds: ['m3'], firstTurn: 2, lastTurn: 2 },
        preserved: [plan.clearings[0]!.preserved[0]],
      },
    ]);
    // The source plan is not changed.
    expect(plan.clearings[0]!.span.messageIds).toEqual(['m3', 'm7']);
  });

  it('is null when no record survives', () => {
    expect(restrictPlanToMessages(plan, new Map([['m9', 5]]), target)).toBeNull();
  });

  it('keeps everything when every message is present', () => {
    const all = new Map(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'].map((id, index) => [id, index]));
    const restricted = restrictPlanToMessages(plan, all, target)!;
    expect(restricted.summarizations).toEqual(plan.summarizations);
    expect(restricted.clearings).toEqual(plan.clearings);
  });
});
