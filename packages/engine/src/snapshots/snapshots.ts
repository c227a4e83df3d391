import {
  type CompactionPlan,
  type EventStore,
  eventsAtSnapshot,
  foldThread,
  NotFoundError,
  type PlanStore,
  parseSnapshotId,
  type RenderSnapshot,
  type RenderSnapshotRef,
  snapshotId,
  type Thread,
} from '@compactor/core';

/** The stores a snapshot is taken from and read back from. */
export interface SnapshotStores {
  events: EventStore;
  plans: PlanStore;
}

/**
 * Pin the thread's current version and its current plan version (ADR-0180). The plan is read first,
 * so the plan pinned was built on the thread version pinned or an earlier one.
 *
 * @param stores - The event and plan stores.
 * @param tenantId - The owning tenant.
 * @param threadId - The thread.
 * @returns The snapshot and its id.
 * @throws NotFoundError for a thread with no events.
 */
export async function takeSnapshot(
  stores: SnapshotStores,
  tenantId: string,
  threadId: string,
): Promise<RenderSnapshotRef> {
  const current = await stores.plans.getCurrent(tenantId, threadId);
  const metadata = await stores.events.getThread(tenantId, threadId);
  if (!metadata || metadata.version < 1) throw new NotFoundError('thread', threadId);
  const snapshot = { threadVersion: metadata.version, planVersion: current.version };
  return { snapshotId: snapshotId(snapshot), ...snapshot };
}

/**
 * The thread and plan a snapshot pins, as they were: the log up to its thread version, folded, and the
 * stored plan version. Rendering them with the same system, tools, budget and provider gives the same
 * bytes whatever was appended or committed since.
 *
 * @param stores - The event and plan stores.
 * @param tenantId - The owning tenant.
 * @param threadId - The thread.
 * @param snapshot - A snapshot id, or the versions it pins.
 * @returns The folded thread at that version and the plan (null for plan version 0).
 * @throws ValidationError for a malformed id or a plan built on a later thread version;
 *   NotFoundError for a thread version not reached or a plan version never committed.
 */
export async function loadSnapshot(
  stores: SnapshotStores,
  tenantId: string,
  threadId: string,
  snapshot: string | RenderSnapshot,
): Promise<{ thread: Thread; plan: CompactionPlan | null; snapshot: RenderSnapshotRef }> {
  const pinned = typeof snapshot === 'string' ? parseSnapshotId(snapshot) : snapshot;
  const [events, plan] = await Promise.all([
    stores.events.readAll(tenantId, threadId),
    pinned.planVersion === 0
      ? Promise.resolve(null)
      : stores.plans.getVersion(tenantId, threadId, pinned.planVersion),
  ]);
  if (events.length === 0) throw new NotFoundError('thread', threadId);
  if (pinned.planVersion !== 0 && plan === null) {
    throw new NotFoundError('plan version', `${threadId}@${pinned.planVersion}`);
  }
  const thread = foldThread(eventsAtSnapshot(threadId, events, pinned, plan));
  return { thread, plan, snapshot: { snapshotId: snapshotId(pinned), ...pinned } };
}
