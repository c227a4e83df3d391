import type { LifecycleEvent } from '@compactor/core';
import type { RecallReport } from '../recall/render-recall.js';
import type { RehydrationEvent } from './rehydration-types.js';

/**
 * Turn the report's rehydration events into lifecycle events the caller can persist (render has
 * no clock, so the caller supplies `at`). Only the event goes to the log, never the content.
 *
 * @param events - The report's performed and blocked rehydrations.
 * @param owner - The thread's tenant and id.
 * @param at - ISO timestamp for every event.
 * @returns One lifecycle event per rehydration event.
 */
export function rehydrationEventsToLifecycle(
  events: readonly RehydrationEvent[],
  owner: { tenantId: string; threadId: string },
  at: string,
): LifecycleEvent[] {
  return events.map((event) => ({
    tenantId: owner.tenantId,
    threadId: owner.threadId,
    name: event.name,
    at,
    ...(event.tokens !== undefined ? { tokensAfter: event.tokens } : {}),
    details: {
      artifactId: event.artifactId,
      turn: event.turn,
      trigger: event.trigger,
      ...(event.reason ? { reason: event.reason } : {}),
      ...(event.detail ? { detail: event.detail } : {}),
      ...(event.sensitivity ? { sensitivity: event.sensitivity } : {}),
      ...(event.truncated !== undefined ? { truncated: event.truncated } : {}),
    },
  }));
}

/**
 * What one render did that the thread's lifecycle log records (ADR-0191): each artifact rehydrated
 * (a same-turn re-show is not a new rehydration and is left out), each rehydration blocked, and one
 * `compaction_retrieved` event when render-time recall brought compacted messages back (ADR-0111).
 *
 * @param report - The render's rehydration and recall reports, and its turn.
 * @param owner - The thread's tenant and id.
 * @param at - ISO timestamp for every event.
 * @returns The lifecycle events, rehydrations first.
 */
export function renderLifecycleEvents(
  report: {
    turn: number;
    rehydration: { performed: readonly RehydrationEvent[]; blocked: readonly RehydrationEvent[] };
    recall: RecallReport;
  },
  owner: { tenantId: string; threadId: string },
  at: string,
): LifecycleEvent[] {
  const rehydration = rehydrationEventsToLifecycle(
    [
      ...report.rehydration.performed.filter((event) => event.trigger !== 'same_turn'),
      ...report.rehydration.blocked,
    ],
    owner,
    at,
  );
  if (report.recall.recalled.length === 0) return rehydration;
  const retrieved: LifecycleEvent = {
    tenantId: owner.tenantId,
    threadId: owner.threadId,
    name: 'compaction_retrieved',
    at,
    tokensAfter: report.recall.tokens,
    strategy: 'recall',
    spanMessageIds: report.recall.recalled.map((hit) => hit.messageId),
    details: {
      turn: report.turn,
      messageIds: report.recall.recalled.map((hit) => hit.messageId),
      compactedBy: report.recall.recalled.map((hit) => hit.compactedBy),
      tokens: report.recall.tokens,
    },
  };
  return [...rehydration, retrieved];
}
