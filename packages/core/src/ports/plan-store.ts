import type { CompactionPlan } from '../plan/plan.js';

/**
 * A plan as read back from storage (ADR-0290): a record list added to the format after the plan was
 * written takes its default, as `compactionPlanSchema` gives it on commit, so a data directory or
 * database written by an earlier release is read, not rejected. Stores hand plans out through this,
 * without a full parse on every read.
 *
 * @param plan - The stored plan, as written.
 * @returns The plan with every record list present (the same object when nothing was missing).
 */
export function planAsStored(plan: CompactionPlan): CompactionPlan {
  // `abridgements` came with ADR-0265; plans written before it have none.
  return Array.isArray(plan.abridgements) ? plan : { ...plan, abridgements: [] };
}

/** A thread's committed plan and its version. */
export interface CurrentPlan {
  /** null when no plan was ever committed (version 0). */
  plan: CompactionPlan | null;
  version: number;
}

/** A commit won (with the new version) or lost the race (with the version that won). */
export type CommitResult =
  | { committed: true; version: number }
  | { committed: false; currentVersion: number };

/** One committed plan version, for history and undo. */
export interface PlanVersionSummary {
  version: number;
  basedOnSeq: number;
  createdAt: string;
  /** Set when this version restored an earlier one (undo). */
  revertedFrom: number | undefined;
}

/**
 * Compaction plans per thread, versioned with compare-and-set: of N committers racing with the
 * same expected version exactly one wins. Every committed version is kept.
 *
 * Versions go 1, 2, 3, ...; the stored plan's `version` field is set to its committed version.
 * A plan that fails `compactionPlanSchema`, or whose `threadId` is not the thread's, is a
 * ValidationError. `revertTo` a version that was never committed is a NotFoundError. Returned
 * plans are copies: changing one never changes the store. Plans are tenant-scoped: another
 * tenant sees version 0 and can commit its own thread of the same id.
 */
export interface PlanStore {
  /**
   * The thread's newest committed plan.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @returns The plan and its version (null and 0 when none was committed): a copy, or one object
   *   frozen at every depth that the store hands out until the next commit (the embedded store does,
   *   so memos keyed by the plan object hit; ADR-0121). Callers never change the store through it.
   */
  getCurrent(tenantId: string, threadId: string): Promise<CurrentPlan>;
  /**
   * Commit a plan if the current version is still `expectedVersion`.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param plan - The plan to store.
   * @param expectedVersion - The version the plan was built on.
   * @returns Committed with the new version, or not with the version that won.
   * @throws ValidationError for an invalid plan or one for another thread.
   */
  commit(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
  ): Promise<CommitResult>;
  /**
   * One committed version.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param version - The version.
   * @returns Its plan, or null when it was never committed.
   */
  getVersion(tenantId: string, threadId: string, version: number): Promise<CompactionPlan | null>;
  /**
   * Every committed version, oldest first.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @returns Their summaries.
   */
  listVersions(tenantId: string, threadId: string): Promise<PlanVersionSummary[]>;
  /**
   * Undo: commit a copy of an earlier version as the newest one.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param version - The version to restore.
   * @param expectedVersion - The current version the caller saw.
   * @returns As {@link PlanStore.commit}.
   * @throws NotFoundError when `version` was never committed.
   */
  revertTo(
    tenantId: string,
    threadId: string,
    version: number,
    expectedVersion: number,
  ): Promise<CommitResult>;
}
