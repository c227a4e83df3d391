import type { LifecycleEvent } from '@compactor/core';
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
