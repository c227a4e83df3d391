import {
  type LifecycleEventLog,
  type Logger,
  lifecycleRecordKey,
  noopLogger,
  rehydrationStateFromLifecycle,
} from '@compactor/core';
import { type RehydrationState, renderLifecycleEvents } from '@compactor/render';

/**
 * How many recent lifecycle events a render reads for its rehydration state. Cooldowns look back a
 * few turns, so a bounded read suffices; a thread with more events than this within its cooldown
 * loses the oldest injections from view (they may rehydrate again), never a block.
 */
export const RENDER_LIFECYCLE_LOOKBACK = 200;

/** What a render takes from, and gives back to, the thread's lifecycle log (ADR-0191). */
export interface RenderRecords {
  /** The rehydration state to render with (cooldowns, same-turn re-injection). */
  state: RehydrationState;
  /**
   * Append what the render did (rehydrated, blocked, retrieved), each outcome once per turn.
   * @returns How many events were appended.
   */
  record(report: Parameters<typeof renderLifecycleEvents>[0], at: string): Promise<number>;
}

/**
 * Rehydration state kept server-side, in the thread's lifecycle log: read it before a render, and
 * record the render's rehydrations, blocks and recalls after it. Every process reads the same
 * state, it survives restarts, and the worker's check reads the same events to learn that this
 * turn rehydrated (`rehydrationHappened`). Failures to read or write are logged and counted by the
 * caller; they never fail the render (the state then starts empty: rehydration may repeat, the
 * budget still holds).
 *
 * @param lifecycle - The thread's lifecycle log, or undefined (nothing kept).
 * @param owner - The thread's tenant and id.
 * @param logger - For read and write failures.
 * @returns The state and the recorder.
 */
export async function loadRenderRecords(
  lifecycle: LifecycleEventLog | undefined,
  owner: { tenantId: string; threadId: string },
  logger: Logger = noopLogger,
): Promise<RenderRecords> {
  let recent: Awaited<ReturnType<LifecycleEventLog['list']>> = [];
  if (lifecycle) {
    try {
      recent = await lifecycle.list(owner.tenantId, owner.threadId, { limit: RENDER_LIFECYCLE_LOOKBACK });
    } catch (error) {
      logger.warn({ err: error, ...owner }, 'could not read rehydration state; rendering without it');
    }
  }
  const seen = new Set(recent.map(lifecycleRecordKey));
  return {
    state: rehydrationStateFromLifecycle(recent),
    async record(report, at) {
      if (!lifecycle) return 0;
      let written = 0;
      for (const event of renderLifecycleEvents(report, owner, at)) {
        const key = lifecycleRecordKey(event);
        if (seen.has(key)) continue;
        seen.add(key);
        try {
          await lifecycle.append(event);
          written += 1;
        } catch (error) {
          logger.warn(
            { err: error, ...owner, name: event.name },
            'could not record a render lifecycle event',
          );
        }
      }
      return written;
    },
  };
}
