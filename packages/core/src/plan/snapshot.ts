import { NotFoundError, ValidationError } from '../errors.js';
import type { StoredEvent } from '../schemas/events.js';
import type { CompactionPlan } from './plan.js';

/**
 * A render pinned to one thread version and one plan version (ADR-0180): delegated agents spawned at
 * one moment render from it and see the same bytes, whatever is appended or committed meanwhile. The
 * log is append-only and plan versions are kept, so the pair is all a snapshot needs; its id encodes
 * it (no store, valid in every process and every replica).
 */
export interface RenderSnapshot {
  /** The thread's last event seq when the snapshot was taken. */
  threadVersion: number;
  /** The plan version then current (0: no plan yet). */
  planVersion: number;
}

/** A snapshot with its id, as the engine, the HTTP API and the client return it. */
export interface RenderSnapshotRef extends RenderSnapshot {
  snapshotId: string;
}

const SNAPSHOT_ID = /^snap_(\d{1,15})_(\d{1,15})$/;

/**
 * The id of a snapshot.
 *
 * @param snapshot - The pinned versions.
 * @returns `snap_<threadVersion>_<planVersion>`.
 */
export function snapshotId(snapshot: RenderSnapshot): string {
  return `snap_${snapshot.threadVersion}_${snapshot.planVersion}`;
}

/**
 * The versions a snapshot id pins.
 *
 * @param id - An id from {@link snapshotId}.
 * @returns The pinned versions.
 * @throws ValidationError for anything else.
 */
export function parseSnapshotId(id: string): RenderSnapshot {
  const match = SNAPSHOT_ID.exec(id);
  if (!match) {
    throw new ValidationError(`${JSON.stringify(id.slice(0, 80))} is not a snapshot id`, [
      { path: 'snapshot', message: 'a snapshot id (snap_<threadVersion>_<planVersion>)' },
    ]);
  }
  return { threadVersion: Number(match[1]), planVersion: Number(match[2]) };
}

/**
 * The log as it was at `threadVersion`, checked against the plan a snapshot pins.
 *
 * @param threadId - The thread (for errors).
 * @param events - The thread's whole log, in seq order.
 * @param snapshot - The pinned versions.
 * @param plan - The plan stored as `snapshot.planVersion` (null for version 0).
 * @returns The events up to and including `threadVersion`.
 * @throws NotFoundError when the thread has not reached that version yet; ValidationError when the
 *   plan was built on a later thread version than the snapshot's.
 */
export function eventsAtSnapshot(
  threadId: string,
  events: readonly StoredEvent[],
  snapshot: RenderSnapshot,
  plan: CompactionPlan | null,
): StoredEvent[] {
  const last = events.at(-1)?.seq ?? 0;
  if (snapshot.threadVersion > last || snapshot.threadVersion < 1) {
    throw new NotFoundError('thread version', `${threadId}@${snapshot.threadVersion}`);
  }
  if (plan && plan.basedOnSeq > snapshot.threadVersion) {
    throw new ValidationError(
      `plan version ${snapshot.planVersion} was built on thread version ${plan.basedOnSeq}, after ${snapshot.threadVersion}`,
      [
        {
          path: 'planVersion',
          message: `a plan built on thread version ${snapshot.threadVersion} or earlier`,
        },
      ],
    );
  }
  return events.filter((event) => event.seq <= snapshot.threadVersion);
}
