import {
  actionOfRecord,
  byPrecedence,
  type NormalizedPlan,
  normalizePlan,
  type PlannedAction,
  recordsToPlanLists,
} from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { CompactionRecord } from '../plan/records.js';
import { VersionedActions } from '../plan/versioned-actions.js';

/** The normalization of each plan `editPlan` returned: its records are disjoint, so it is known already. */
const normalizationsOfEdits = new WeakMap<CompactionPlan, NormalizedPlan>();
/** The plan each of those was edited from. */
const parentsOfEdits = new WeakMap<CompactionPlan, CompactionPlan>();

/**
 * The normalization of each other plan asked for (a committed plan, a stored one), once per plan object
 * (plans are never edited in place; ADR-0415): a check measures the committed plan and then plans from it,
 * and both read this one normalization instead of each walking every id the plan hides. Its owner map stays a
 * plain `Map` that each run's first edit copies: shared as a `VersionedActions`, every later run from the
 * same plan object took the map back through the previous run's differences (more than a copy, measured).
 */
const normalizationsOfPlans = new WeakMap<CompactionPlan, NormalizedPlan>();

/**
 * `normalizePlan(plan)`, without walking the plan again when `editPlan` made it (its records are the
 * normalized records of the edit, so normalizing them again gives the same owners, the same records in
 * the same order, and no conflicts), nor when this plan object was normalized before (ADR-0415).
 *
 * @param plan - A plan, edited or not.
 * @returns Its normalization.
 */
export function normalizedPlanOf(plan: CompactionPlan): NormalizedPlan {
  const known = normalizationsOfEdits.get(plan) ?? normalizationsOfPlans.get(plan);
  if (known) return known;
  const normalized = normalizePlan(plan);
  normalizationsOfPlans.set(plan, normalized);
  return normalized;
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
 * `plan` with other stamps (thread, seq, time, policy version) and the very same record lists: what a
 * planning run starts from. Its normalization is `plan`'s (normalization reads the record lists only), so
 * it is recorded as an edit of `plan` instead of being normalized again per run (ADR-0415).
 *
 * @param plan - The plan the run starts from (unchanged).
 * @param stamps - The fields that differ.
 * @returns The restamped plan.
 */
export function restampedPlan(
  plan: CompactionPlan,
  stamps: Pick<CompactionPlan, 'threadId' | 'basedOnSeq' | 'createdAt' | 'policyVersion'>,
): CompactionPlan {
  const normalized = normalizedPlanOf(plan);
  const restamped = { ...plan, ...stamps };
  // An edit's normalization has no conflicts (`editOfDisjointRecords` relies on it): a plan that has
  // some is normalized again the first time it is asked for, as before.
  if (normalized.warnings.length > 0) return restamped;
  normalizationsOfEdits.set(restamped, { ...normalized, plan: restamped });
  parentsOfEdits.set(restamped, plan);
  return restamped;
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
  const disjoint = editOfDisjointRecords(plan, normalized, kept, added);
  if (disjoint) return disjoint;
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
      // One owner object for the record's ids, as `normalizePlan` gives (ADR-0455).
      const owner: PlannedAction = { action: actionOfRecord(record), record };
      for (const messageId of record.span.messageIds) actions.set(messageId, owner);
    }
    normalizationsOfEdits.set(edited, { plan: edited, actions, records: merged.records, warnings: [] });
    parentsOfEdits.set(edited, plan);
  }
  return edited;
}

/**
 * `editPlan` when nothing conflicts (ADR-0385): the plan's normalization had no conflict (each record owns
 * every id it names) and the added records name no id a kept record owns, nor one id twice between them.
 * Then normalizing the kept and added records from scratch keeps every record whole, in precedence order
 * (kind by kind, kept before added), and changes owners only at the ids of the removed and added records:
 * the owner map is derived from the plan's by those ids alone (a `VersionedActions` sharing its entries),
 * not by walking every id the plan owns. Undefined when the edit needs a full normalization.
 */
function editOfDisjointRecords(
  plan: CompactionPlan,
  normalized: NormalizedPlan,
  kept: readonly CompactionRecord[],
  added: readonly CompactionRecord[],
): CompactionPlan | undefined {
  if (normalized.warnings.length > 0) return undefined;
  const keptRecords = new Set(kept);
  const removed = new Set(normalized.records.filter((record) => !keptRecords.has(record)));
  // A record added again, or twice, names its ids twice: a conflict.
  if (
    new Set(added).size !== added.length ||
    added.some((record) => removed.has(record) || keptRecords.has(record))
  )
    return undefined;
  const actions = VersionedActions.derive(
    normalized.actions,
    removed,
    added.map((record) => ({
      ids: record.span.messageIds,
      owner: { action: actionOfRecord(record), record },
    })),
  );
  if (!actions) return undefined;
  const lists = recordsToPlanLists([...kept, ...added]);
  // A record naming no id owns nothing, and normalizing leaves it out.
  const records = byPrecedence([
    ...lists.drops,
    ...lists.externalizations,
    ...lists.summarizations,
    ...lists.clearings,
    ...lists.abridgements,
  ]).filter((record) => record.span.messageIds.length > 0);
  const edited = { ...plan, ...recordsToPlanLists(records) };
  normalizationsOfEdits.set(edited, { plan: edited, actions, records, warnings: [] });
  parentsOfEdits.set(edited, plan);
  return edited;
}
