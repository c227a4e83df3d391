import { type CompactionPlan, compactionPlanSchema } from '../plan/plan.js';
import type { EventInput, EventType, StoredEvent } from '../schemas/events.js';
import { planAsStored } from './plan-store.js';

/**
 * The rules for plan versions in the thread's log (ADR-0190), beside the `PlanStore` port: the
 * service appends one `plan.committed` event after each compare-and-set it won (a lost race
 * appends nothing), under an event id derived from the plan version, so a retry or a repair of the
 * same version is an idempotent no-op; the log alone then rebuilds every plan version.
 */

/**
 * The event id of a plan version's `plan.committed` event: one per version, so appending it twice
 * stores it once.
 *
 * @param planVersion - The committed plan version (1, 2, ...).
 * @returns `plan.committed:<version>`.
 */
export function planCommittedEventId(planVersion: number): string {
  return `plan.committed:${planVersion}`;
}

/**
 * The `plan.committed` event for a committed plan version.
 *
 * @param plan - The plan as committed.
 * @param planVersion - The version the PlanStore gave it.
 * @param at - Optional timestamp (ISO); the store's clock otherwise.
 * @returns The event input, carrying the plan with `version` set to `planVersion`.
 */
export function planCommittedEvent(plan: CompactionPlan, planVersion: number, at?: string): EventInput {
  const committed = compactionPlanSchema.parse({ ...plan, version: planVersion });
  return {
    eventId: planCommittedEventId(planVersion),
    ...(at !== undefined ? { timestamp: at } : {}),
    type: 'plan.committed',
    planVersion,
    basedOnSeq: committed.basedOnSeq,
    tokensBefore: committed.originalTokenCount,
    tokensAfter: committed.compactedTokenCount,
    plan: committed,
  };
}

/**
 * Every plan version the log records, rebuilt from its `plan.committed` events alone.
 *
 * @param events - The thread's stored events, in seq order.
 * @returns Plan version → plan (events that carry no plan are skipped).
 */
export function plansFromLog(events: readonly StoredEvent[]): Map<number, CompactionPlan> {
  const plans = new Map<number, CompactionPlan>();
  for (const event of events) {
    if (event.type === 'plan.committed' && event.plan) plans.set(event.planVersion, planAsStored(event.plan));
  }
  return plans;
}

/**
 * Plan versions up to `currentVersion` the log has no `plan.committed` event for (an append that
 * failed after its commit, or a thread from before ADR-0190), oldest first.
 *
 * @param events - The thread's stored events.
 * @param currentVersion - The PlanStore's current version.
 * @returns The missing versions.
 */
export function planVersionsMissingFromLog(events: readonly StoredEvent[], currentVersion: number): number[] {
  const recorded = new Set<number>();
  for (const event of events) if (event.type === 'plan.committed') recorded.add(event.planVersion);
  return planVersionsMissing(recorded, currentVersion);
}

/**
 * Plan versions up to `currentVersion` not among `recorded` (a fold's `loggedPlanVersions`).
 *
 * @param recorded - The versions the log has `plan.committed` events for.
 * @param currentVersion - The PlanStore's current version.
 * @returns The missing versions, oldest first.
 */
export function planVersionsMissing(recorded: ReadonlySet<number>, currentVersion: number): number[] {
  const missing: number[] = [];
  for (let version = 1; version <= currentVersion; version += 1) {
    if (!recorded.has(version)) missing.push(version);
  }
  return missing;
}

/** Events that record what the service did or was told, not the conversation or its policy. */
const OUTSIDE_THE_CONVERSATION: ReadonlySet<EventType> = new Set<EventType>([
  'plan.committed',
  'lifecycle',
  'context.registered',
]);

/**
 * The seq of the last event that changes what the planner compacts (a message, the thread's
 * creation or branching, a policy change). Service records (`plan.committed`, `lifecycle`,
 * `context.registered`) advance the thread version but not this, so a plan based on the
 * conversation is not re-planned because its own commit was logged (no compaction loops, ADR-0105).
 *
 * @param events - The thread's stored events, in seq order.
 * @returns That seq, or 0 for no events.
 */
export function lastConversationSeq(events: readonly StoredEvent[]): number {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    if (isConversationEvent(event.type)) return event.seq;
  }
  return 0;
}

/**
 * Whether an event changes what the planner compacts (see {@link lastConversationSeq}).
 *
 * @param type - The event's type.
 * @returns false for service records (`plan.committed`, `lifecycle`, `context.registered`).
 */
export function isConversationEvent(type: EventType): boolean {
  return !OUTSIDE_THE_CONVERSATION.has(type);
}
