import { normalizePlan, recordsToPlanLists } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { CompactionRecord } from '../plan/records.js';

/**
 * The plan with `added` records, without the records `remove` selects, re-normalized so every
 * message id is in at most one record.
 *
 * @param plan - The plan to edit (unchanged).
 * @param added - Records to add.
 * @param remove - Selects records to take out.
 * @returns The edited plan.
 */
export function editPlan(
  plan: CompactionPlan,
  added: readonly CompactionRecord[],
  remove: (record: CompactionRecord) => boolean = () => false,
): CompactionPlan {
  const kept = normalizePlan(plan).records.filter((record) => !remove(record));
  const lists = recordsToPlanLists(
    normalizePlan({ ...plan, ...recordsToPlanLists([...kept, ...added]) }).records,
  );
  return { ...plan, ...lists };
}
