import { normalizePlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { ThreadMessage } from '../thread/thread.js';

/**
 * The messages a trigger counts: those the prompt still shows under `plan`, verbatim or cleared.
 * Dropped, summarized and externalized messages are archived, as they are when compaction
 * replaces the session's events (ADR-0010): a turn-count trigger that counted archived turns
 * would fire on every check after its first compaction.
 */
export function messagesForTrigger(
  messages: readonly ThreadMessage[],
  plan: CompactionPlan | null,
): ThreadMessage[] {
  if (!plan) return [...messages];
  const normalized = normalizePlan(plan);
  return messages.filter((message) => {
    const action = normalized.actions.get(message.id)?.action;
    return action === undefined || action === 'clear';
  });
}
