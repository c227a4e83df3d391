import { actionFor, type CompactionAction, type CompactionPlan, normalizePlan } from '@compactor/core';

/** A run of consecutive messages whose action changed the same way between two plan versions. */
export interface ChangedSpan {
  fromMessageId: string;
  toMessageId: string;
  messageIds: string[];
  before: CompactionAction;
  after: CompactionAction;
}

/**
 * Which messages a plan version treats differently from the version before it, as spans of
 * consecutive messages (in log order) sharing the same before→after change. A message the plan
 * does not name is included. `previous` null is the state before any plan: everything included.
 */
export function diffPlans(
  messageIds: readonly string[],
  previous: CompactionPlan | null,
  next: CompactionPlan,
): ChangedSpan[] {
  const before = previous ? normalizePlan(previous) : null;
  const after = normalizePlan(next);
  const spans: ChangedSpan[] = [];
  let open: ChangedSpan | undefined;
  for (const messageId of messageIds) {
    const was = before ? actionFor(before, messageId) : 'include';
    const is = actionFor(after, messageId);
    if (was === is) {
      open = undefined;
      continue;
    }
    if (open && open.before === was && open.after === is) {
      open.messageIds.push(messageId);
      open.toMessageId = messageId;
      continue;
    }
    open = {
      fromMessageId: messageId,
      toMessageId: messageId,
      messageIds: [messageId],
      before: was,
      after: is,
    };
    spans.push(open);
  }
  return spans;
}
