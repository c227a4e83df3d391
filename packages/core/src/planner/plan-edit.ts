import {
  type NormalizedPlan,
  normalizePlan,
  type PlannedAction,
  recordsToPlanLists,
} from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { CompactionRecord } from '../plan/records.js';

/** The normalization of each plan `editPlan` returned: its records are disjoint, so it is known already. */
const normalizationsOfEdits = new WeakMap<CompactionPlan, NormalizedPlan>();
/** The plan each of those was edited from. */
const parentsOfEdits = new WeakMap<CompactionPlan, CompactionPlan>();

/**
 * `normalizePlan(plan)`, without walking the plan again when `editPlan` made it (its records are the
 * normalized records of the edit, so normalizing them again gives the same owners, the same records in
 * the same order, and no conflicts).
 *
 * @param plan - A plan, edited or not.
 * @returns Its normalization.
 */
export function normalizedPlanOf(plan: CompactionPlan): NormalizedPlan {
  return normalizationsOfEdits.get(plan) ?? normalizePlan(plan);
}

/**
 * Whether `editPlan` made this plan object (with its normalization known): a planner's candidate, made in
 * this process, never a copy a store handed out.
 *
 * @param plan - A plan.
 * @returns True for a plan `editPlan` returned with its normalization recorded.
 */
export function isEditedPlan(plan: CompactionPlan): boolean {
  return normalizationsOfEdits.has(plan);
}

/**
 * The plan `editPlan` made this one from, when it recorded the edit's normalization: what a normalization
 * of the parent derived per message changes only at the ids of the records the two normalizations do not
 * share (a normalized record owns every id it names, in both).
 *
 * @param plan - A plan.
 * @returns The plan it was edited from, if `editPlan` made it with its normalization known.
 */
export function editedFrom(plan: CompactionPlan): CompactionPlan | undefined {
  return parentsOfEdits.get(plan);
}

/**
 * The plan with `added` records, without the records `remove` selects, re-normalized so every
 * message id is in at most one record.
 *
 * @param plan - The plan to edit (unchanged).
 * @param added - Records to add.
 * @param remove - Selects records to take out.
 * @param normalized - `normalizePlan(plan)`, when the caller has it.
 * @returns The edited plan.
 */
export function editPlan(
  plan: CompactionPlan,
  added: readonly CompactionRecord[],
  remove: (record: CompactionRecord) => boolean = () => false,
  normalized: NormalizedPlan = normalizedPlanOf(plan),
): CompactionPlan {
  const kept = normalized.records.filter((record) => !remove(record));
  const given = [...kept, ...added];
  const merged = normalizePlan({ ...plan, ...recordsToPlanLists(given) });
  const edited = { ...plan, ...recordsToPlanLists(merged.records) };
  const named = merged.records.reduce((total, record) => total + record.span.messageIds.length, 0);
  // Each id named once across the records (no record twice, no id twice in one): normalizing the
  // edited plan again finds no conflict, keeps every record whole and in this order, so its owners are
  // these, with a record a conflict reduced owning its ids as the reduced copy.
  if (merged.actions.size === named) {
    const givenRecords = new Set(given);
    const actions = merged.actions as Map<string, PlannedAction>;
    for (const record of merged.records) {
      if (givenRecords.has(record)) continue;
      for (const messageId of record.span.messageIds)
        actions.set(messageId, { action: actions.get(messageId)!.action, record });
    }
    normalizationsOfEdits.set(edited, { plan: edited, actions, records: merged.records, warnings: [] });
    parentsOfEdits.set(edited, plan);
  }
  return edited;
}
