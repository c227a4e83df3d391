import type { ThreadMessage } from '../thread/thread.js';
import { normalizePlan } from './normalize.js';
import type { CompactionPlan } from './plan.js';

/**
 * What one compaction did to the conversation, by message (each message is one `message.appended`
 * event): the session service's result (the `seed-004-*` presets) of archived and kept events and tokens saved.
 */
export interface CompactionOutcome {
  /** Messages the new plan compacts (summarized, externalized, cleared or dropped) that the previous plan showed verbatim, in log order. */
  archivedMessageIds: string[];
  /** Messages the new plan still shows verbatim, in log order. */
  keptMessageIds: string[];
  /** Message tokens before minus after, as the renderer measured them (negative if a plan grew the prompt). */
  tokensSaved: number;
}

/**
 * The archived and kept messages of a compaction.
 *
 * @param messages - The thread's messages the plans were built on.
 * @param previous - The plan before (null: none).
 * @param next - The plan committed.
 * @param tokens - Message tokens before and after, as measured by the planner.
 * @returns The outcome.
 */
export function compactionOutcome(
  messages: readonly ThreadMessage[],
  previous: CompactionPlan | null,
  next: CompactionPlan,
  tokens: { before: number; after: number },
): CompactionOutcome {
  const before = previous ? normalizePlan(previous).actions : new Map();
  const after = normalizePlan(next).actions;
  const archivedMessageIds: string[] = [];
  const keptMessageIds: string[] = [];
  for (const message of messages) {
    if (!after.has(message.id)) keptMessageIds.push(message.id);
    else if (!before.has(message.id)) archivedMessageIds.push(message.id);
  }
  return { archivedMessageIds, keptMessageIds, tokensSaved: tokens.before - tokens.after };
}
