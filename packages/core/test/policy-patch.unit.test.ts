import { describe, expect, it } from 'vitest';
import { eventInputSchema, foldMore, foldThread, type StoredEvent } from '../src/index.js';

const base = { tenantId: 't', threadId: 'th', timestamp: '2025-01-01T00:00:00.000Z' };

function created(): StoredEvent {
  return {
    ...base,
    eventId: 'c',
    seq: 1,
    type: 'thread.created',
    model: 'claude-sonnet-4-5',
    contextWindow: 200_000,
    policy: { keepRecentTurns: 5 },
  } as StoredEvent;
}

function patched(seq: number, patch: Record<string, unknown>): StoredEvent {
  return { ...base, eventId: `p${seq}`, seq, type: 'policy.updated', patch } as StoredEvent;
}

describe('policy.updated', () => {
  it('patches the created policy in log order, keeping fields no patch names', () => {
    const thread = foldThread([
      created(),
      patched(2, { autoCompact: false, softThresholdPercent: 0.5 }),
      patched(3, { softThresholdPercent: 0.7 }),
    ]);
    expect(thread.policy.autoCompact).toBe(false);
    expect(thread.policy.softThresholdPercent).toBe(0.7);
    expect(thread.policy.keepRecentTurns).toBe(5);
    expect(foldThread([created()]).policy.autoCompact).toBe(true);
  });

  it('folds the same incrementally as at once', () => {
    const events = [created(), patched(2, { autoCompact: false, keepRecentTokens: 1_000 })];
    expect(foldMore(foldThread(events.slice(0, 1)), events.slice(1))).toEqual(foldThread(events));
  });

  it('rejects unknown or immutable fields', () => {
    const input = { eventId: 'p', type: 'policy.updated', patch: { mode: { kind: 'ladder' } } };
    expect(eventInputSchema.safeParse(input).success).toBe(false);
    expect(eventInputSchema.safeParse({ ...input, patch: { autoCompact: 'no' } }).success).toBe(false);
    expect(eventInputSchema.safeParse({ ...input, patch: { autoCompact: false } }).success).toBe(true);
  });
});
