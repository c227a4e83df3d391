import type { CompactionAction, NormalizedPlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { CompactionRecord } from '../plan/records.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import type { ThreadMessage } from '../thread/thread.js';
import type { Proposal, RungContext, RungName } from './planner-types.js';
import type { ProtectedRegions } from './protected-tail.js';

/**
 * What a rung's last full analysis found, for the regions it was made under (ADR-0380): the plan it read
 * and the proposals (one message each) still open after every analysis since.
 */
interface LastAnalysis {
  policy: CompactionPolicy;
  countMessage: (message: ThreadMessage) => number;
  plan: CompactionPlan;
  normalized: NormalizedPlan;
  proposals: Proposal[];
}

/**
 * By regions object: a run memoizes its regions by what they depend on (ADR-0280), so the object names one
 * run's thread, policy, counter, target, tail and untouchable ids; nothing here outlives the run.
 */
const lastAnalyses = new WeakMap<ProtectedRegions, Map<RungName, LastAnalysis>>();

/**
 * A rung's proposals for `context`, read from its previous analysis under the same regions when that is
 * exact (ADR-0380). It applies to a rung whose analysis reads the plan only through each message's own
 * action, `passes` saying which actions it may still take (include, for the abridge rung), and whose
 * proposals each name one message. Between two plans a message's action changes only at the ids of the
 * records the two normalizations do not share (a normalized record owns every id it names, in both):
 * when no id of a record the new plan no longer has now passes, nothing the previous analysis left out
 * can come back, and the new analysis is the previous proposals whose message still passes, in the same
 * order. Otherwise (or for other regions, policy or counter) `analyze` runs in full.
 *
 * @param rung - The rung asking (one memo per rung).
 * @param context - The step's context (its regions, plan, policy and counter).
 * @param passes - Whether the rung may take a message with this action.
 * @param analyze - The rung's full analysis of `context`.
 * @returns Exactly what `analyze(context)` returns.
 */
export function reusedAnalysis(
  rung: RungName,
  context: RungContext,
  passes: (action: CompactionAction) => boolean,
  analyze: () => Proposal[],
): Proposal[] {
  let byRung = lastAnalyses.get(context.regions);
  if (!byRung) {
    byRung = new Map();
    lastAnalyses.set(context.regions, byRung);
  }
  const normalized = context.index.normalized(context.plan);
  const last = byRung.get(rung);
  const countMessage = context.input.countMessage;
  if (last && last.policy === context.policy && last.countMessage === countMessage) {
    if (last.plan === context.plan) return last.proposals.slice();
    const still = reopensNothing(last.normalized, normalized, passes)
      ? last.proposals.filter((proposal) => passes(actionOf(normalized, proposal.span.messageIds[0]!)))
      : undefined;
    if (still) {
      byRung.set(rung, { ...last, plan: context.plan, normalized, proposals: still });
      return still.slice();
    }
  }
  const proposals = analyze();
  byRung.set(rung, { policy: context.policy, countMessage, plan: context.plan, normalized, proposals });
  return proposals.slice();
}

function actionOf(normalized: NormalizedPlan, messageId: string): CompactionAction {
  return normalized.actions.get(messageId)?.action ?? 'include';
}

/** No id of a record `before` has and `now` has not takes, under `now`, an action the rung may take. */
function reopensNothing(
  before: NormalizedPlan,
  now: NormalizedPlan,
  passes: (action: CompactionAction) => boolean,
): boolean {
  const kept = new Set<CompactionRecord>(now.records);
  for (const record of before.records) {
    if (kept.has(record)) continue;
    for (const messageId of record.span.messageIds) if (passes(actionOf(now, messageId))) return false;
  }
  return true;
}
