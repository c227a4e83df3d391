import { type NormalizedPlan, normalizePlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { ThreadMessage } from '../thread/thread.js';

/**
 * The messages a trigger counts: those the prompt still shows under `plan`, verbatim or cleared.
 * Dropped, summarized and externalized messages are archived, as they are when compaction
 * replaces the session's events (ADR-0010): a turn-count trigger that counted archived turns
 * would fire on every check after its first compaction.
 *
 * @param messages - The thread's messages.
 * @param plan - The current plan, or null.
 * @returns The messages the trigger counts, in order.
 */
export function messagesForTrigger(
  messages: readonly ThreadMessage[],
  plan: CompactionPlan | null,
): ThreadMessage[] {
  return extendTriggerView(undefined, messages, plan).messages;
}

/** {@link messagesForTrigger}'s answer with what extending it for later messages needs. */
export interface TriggerView {
  readonly plan: CompactionPlan | null;
  readonly normalized: NormalizedPlan | undefined;
  /** The messages the trigger counts (a new array per view; never changed afterwards). */
  readonly messages: ThreadMessage[];
  /** How many of the thread's messages it has looked at, and the last one's id. */
  readonly seen: number;
  readonly lastMessageId: string | undefined;
}

/**
 * {@link messagesForTrigger} for a thread that grew since `previous` was made: with the same plan
 * object and the same prefix, only the new messages are looked at (the plan is not normalized again),
 * so a check after one append costs what is new plus a copy of the (compacted, short) visible list.
 * Anything else (another plan, a thread that is not an extension) is computed from scratch. Equal to
 * `messagesForTrigger(messages, plan)` either way (property-tested).
 *
 * @param previous - The view of an earlier check of the same thread, if any.
 * @param messages - The thread's messages now.
 * @param plan - The current plan, or null.
 * @returns The view.
 */
export function extendTriggerView(
  previous: TriggerView | undefined,
  messages: readonly ThreadMessage[],
  plan: CompactionPlan | null,
): TriggerView {
  const extendable =
    previous !== undefined &&
    previous.plan === plan &&
    previous.seen <= messages.length &&
    (previous.seen === 0 || messages[previous.seen - 1]?.id === previous.lastMessageId);
  const normalized = extendable ? previous.normalized : plan ? normalizePlan(plan) : undefined;
  const visible = extendable ? previous.messages.slice() : [];
  for (let position = extendable ? previous.seen : 0; position < messages.length; position += 1) {
    const message = messages[position]!;
    const action = normalized?.actions.get(message.id)?.action;
    if (action === undefined || action === 'clear') visible.push(message);
  }
  return { plan, normalized, messages: visible, seen: messages.length, lastMessageId: messages.at(-1)?.id };
}
