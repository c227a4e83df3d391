import {
  abridgedMessage,
  abridgesMediaPastTurn,
  type CompactionPlan,
  type CompactionPolicy,
  callsBeforeNextCompaction,
  emptyPlan,
  growthPerCall,
  mediaPastTurn,
  postponedRewrite,
  stepPays,
  type Thread,
  type ThreadMessage,
  type TriggerDecision,
} from '@compactor/core';

/*
 * Media past their turn (ADR-0440): on a dialogue the check commits the abridgement of a picture whose
 * turn is over, alone, when the cache cost model says it pays: it rewrites only the messages after the
 * picture and frees the picture's tokens on every call until the next compaction, which comes later.
 */

/** Name of the decision in `CheckResult.trigger`. */
export const MEDIA_TRIGGER = 'media-past-turn';

/** A firing media decision and the target the planner is given for it (the tokens the abridgements leave). */
export interface MediaTrigger {
  decision: TriggerDecision;
  targetTokens: number;
}

/**
 * Whether the check should commit the abridgement of media past their turn now.
 *
 * @param input - The thread, its current plan, the message tokens measured under it, the measurer
 *   (message tokens of a plan as rendered; one message's tokens), the high-water mark and the
 *   planner's target.
 * @returns The decision and the planner's target, or undefined when nothing is past its turn, the
 *   abridgements free too little as rendered, or the rewrite would not pay for itself.
 */
export function mediaPastTurnTrigger(input: {
  thread: Thread;
  plan: CompactionPlan | null;
  messageTokens: number;
  highWaterTokens: number;
  targetTokens: number;
  measure: (plan: CompactionPlan) => number;
  countMessage: (message: ThreadMessage) => number;
}): MediaTrigger | undefined {
  const { thread, plan } = input;
  const policy = thread.policy;
  const messages = thread.messages;
  if (!abridgesMediaPastTurn(policy, messages)) return undefined;
  const records = mediaPastTurn(messages, plan, policy.abridgePasteEdgeLines);
  if (records.length === 0) return undefined;
  const base = plan ?? emptyPlan(thread.id, new Date(0).toISOString());
  // Measured as rendered: a format that sends an assistant's image as a line of text frees nothing.
  const freed =
    input.messageTokens - input.measure({ ...base, abridgements: [...base.abridgements, ...records] });
  if (freed < policy.abridgeMinTokensFreed) return undefined;
  // What the next request writes after the first abridged message, the abridged messages at their new size.
  const byId = new Map(records.map((record) => [record.span.messageIds[0]!, record]));
  const first = messages.findIndex((message) => byId.has(message.id));
  let rewritten = 0;
  for (let position = first; position < messages.length; position += 1) {
    const message = messages[position]!;
    const record = byId.get(message.id);
    rewritten += input.countMessage(record ? abridgedMessage(message, record) : message);
  }
  const left = input.messageTokens - freed;
  const calls = callsBeforeNextCompaction({
    highWater: input.highWaterTokens,
    low: left,
    growthPerCall: growthPerCall(messages, input.countMessage),
  });
  // The next compaction goes down to the low-water mark and leaves the summary blocks before it.
  const next = {
    highWater: input.highWaterTokens,
    low: Math.floor(input.targetTokens * policy.lowWaterPercent),
    stablePrefix: (plan?.summarizations ?? []).reduce((total, record) => total + record.summaryTokenCount, 0),
  };
  const pays = stepPays({
    tokensFreed: freed,
    extraRewrittenTokens: rewritten,
    calls,
    postponedRewriteTokens: postponedRewrite(next, freed),
  });
  if (!pays) return undefined;
  return {
    decision: {
      fire: true,
      trigger: MEDIA_TRIGGER,
      reason: `${records.length} message(s) past their turn hold media: abridging frees ${freed} tokens for a rewrite of ${rewritten}`,
    },
    targetTokens: left,
  };
}

/**
 * The policy a media commit plans under: the abridge rung only, no cost-model depth and no least
 * amount to free, so the plan adds the abridgements and nothing else.
 *
 * @param policy - The thread's policy.
 * @returns The same policy with every other rung off.
 */
export function abridgeOnly(policy: CompactionPolicy): CompactionPolicy {
  return {
    ...policy,
    strategies: { abridge: true, externalize: false, summarize: false, clear: false, drop: false },
    cacheCostModel: false,
    clearAtLeastTokens: 0,
  };
}
