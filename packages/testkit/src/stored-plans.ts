import type { CompactionPlan } from '@compactor/core';

/**
 * A small committed-shape plan (one clear record over `m1`), for store tests that write a plan and then
 * rewrite its stored form the way an earlier release left it (ADR-0290).
 *
 * @param threadId - The plan's thread.
 * @returns A plan every store accepts at version 0.
 */
export function clearOnePlan(threadId: string): CompactionPlan {
  return {
    formatVersion: 'v1',
    threadId,
    version: 0,
    basedOnSeq: 2,
    createdAt: '2026-11-24T00:00:00.000Z',
    policyVersion: '1',
    externalizations: [],
    summarizations: [],
    clearings: [{ kind: 'clear', span: { messageIds: ['m1'], firstTurn: 0, lastTurn: 0 }, preserved: [] }],
    drops: [],
    abridgements: [],
    originalTokenCount: 100,
    compactedTokenCount: 60,
  };
}
