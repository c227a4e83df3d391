import type { CompactionPlan } from './plan.js';
import type { ClearRecord } from './records.js';
import type { SpanReference } from './span.js';

/**
 * A source thread's plan, for a branch that holds only some of its messages (`turnById`: the
 * branch's message ids and their turns). A summary, externalization or drop is kept only when
 * every message it covers is in the branch (a summary of messages the branch never had would put
 * their facts in its prompt); a clearing is cut down to the results present. Null when nothing is
 * left. The copy is re-addressed to the branch and rebased on `basedOnSeq` (a branch seq).
 *
 * @param plan - The source thread's plan.
 * @param turnById - The branch's message ids and their turns.
 * @param target - The branch's thread id, base sequence number and timestamp.
 * @returns The restricted plan, or null when no record is left.
 */
export function restrictPlanToMessages(
  plan: CompactionPlan,
  turnById: ReadonlyMap<string, number>,
  target: { threadId: string; basedOnSeq: number; createdAt: string },
): CompactionPlan | null {
  const covered = (span: SpanReference) => span.messageIds.every((id) => turnById.has(id));
  const clearings = plan.clearings.flatMap((record): ClearRecord[] => {
    const messageIds = record.span.messageIds.filter((id) => turnById.has(id));
    if (messageIds.length === 0) return [];
    if (messageIds.length === record.span.messageIds.length) return [record];
    const turns = messageIds.map((id) => turnById.get(id)!);
    return [
      {
        ...record,
        span: { messageIds, firstTurn: Math.min(...turns), lastTurn: Math.max(...turns) },
        preserved: record.preserved.filter((entry) => turnById.has(entry.messageId)),
      },
    ];
  });
  const restricted: CompactionPlan = {
    ...plan,
    threadId: target.threadId,
    version: 0,
    basedOnSeq: target.basedOnSeq,
    createdAt: target.createdAt,
    summarizations: plan.summarizations.filter((record) => covered(record.span)),
    externalizations: plan.externalizations.filter((record) => covered(record.span)),
    drops: plan.drops.filter((record) => covered(record.span)),
    abridgements: plan.abridgements.filter((record) => covered(record.span)),
    clearings,
  };
  const records =
    restricted.summarizations.length +
    restricted.externalizations.length +
    restricted.drops.length +
    restricted.clearings.length +
    restricted.abridgements.length;
  return records === 0 ? null : restricted;
}
