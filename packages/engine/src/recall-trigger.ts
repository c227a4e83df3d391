import {
  type CompactionPlan,
  earlyCommitPays,
  type ProviderName,
  stableSummaryTokens,
  type Thread,
  type ThreadMessage,
  type Tokenizer,
  type TriggerDecision,
  threadKindOf,
  tokenBudget,
} from '@compactor/core';
import {
  type RecallReport,
  RenderBudgetExceededError,
  type RenderCache,
  renderPromptSync,
} from '@compactor/render';

/*
 * The check sees the append-only recall blocks (ADR-0361). Under the append placement (ADR-0276) each
 * turn of a plan version keeps its recall block in place; the blocks are sized from the room each turn
 * began with, so as the messages grow towards the high-water mark a block stops fitting and is left
 * out, and everything after its place is written to the cache again, usually a few calls before the
 * commit rewrites the same span. Committing at that call instead breaks the prefix once.
 */

/** Name of the decision in `CheckResult.trigger`. */
export const RECALL_TRIGGER = 'recall-blocks';

/**
 * Whether the next request would leave out a recall block of the current plan version: the thread
 * rendered now (as the runtime would, without its system prompt and tools, whose tokens `overhead`
 * takes from the window instead) under the append placement, and its recall report read. With
 * `'when-it-pays'` (ADR-0430) it fires only when the previous call's request still sent what goes now
 * (else the break is paid already) and the break is worth the share of a commit spent early.
 *
 * @param input - The thread, its plan, tokenizer, wire format, the engine's render cache, the caller's
 *   system prompt and tool tokens, the message tokens measured under the plan, the floor below which
 *   the check does not fire (a commit goes down to about there: no commit right after a commit) and the
 *   high-water mark (where the target trigger fires).
 * @returns A firing decision, or undefined when every block fits (or the rule does not apply).
 */
export function recallBlocksTrigger(input: {
  thread: Thread;
  plan: CompactionPlan | null;
  tokenizer: Tokenizer;
  provider: ProviderName;
  cache: RenderCache;
  overheadTokens: number;
  messageTokens: number;
  floorTokens: number;
  highWaterTokens: number;
}): TriggerDecision | undefined {
  const { thread, plan } = input;
  const recall = thread.policy.recall;
  if (!recall.enabled || !recall.appendCommitWhenLeftOut || plan === null) return undefined;
  if (input.messageTokens < input.floorTokens) return undefined;
  const append =
    recall.placement === 'append' ||
    (recall.placement === 'auto' && threadKindOf(thread.messages) === 'coding');
  if (!append) return undefined;
  const now = renderedRecall(thread, plan, input);
  if (!now || (now.report.leftOutTokens === undefined && !now.report.epochRestarted)) return undefined;
  if (recall.appendCommitWhenLeftOut === 'when-it-pays' && !breakWorthACommit(now, thread, plan, input))
    return undefined;
  const decision = (reason: string): TriggerDecision => ({ fire: true, trigger: RECALL_TRIGGER, reason });
  const blocks = `plan version ${plan.version}'s recall blocks`;
  if (now.report.leftOutTokens !== undefined)
    return decision(
      `${now.report.leftOutTokens} tokens of ${blocks} no longer fit beside ${input.messageTokens} message tokens`,
    );
  return decision(`the newest turn found no room beside ${blocks} (a new epoch)`);
}

interface RenderedRecall {
  report: RecallReport;
  messageTokens: number;
}

/** The recall report of `thread` rendered under `plan` (undefined when over the ceiling). */
function renderedRecall(
  thread: Thread,
  plan: CompactionPlan,
  input: Pick<
    Parameters<typeof recallBlocksTrigger>[0],
    'tokenizer' | 'provider' | 'cache' | 'overheadTokens'
  >,
): RenderedRecall | undefined {
  try {
    const rendered = renderPromptSync({
      thread,
      plan,
      system: '',
      tools: [],
      budget: tokenBudget({
        maxInputTokens: Math.max(0, thread.contextWindow - input.overheadTokens),
        outputReserveTokens: thread.policy.outputReserveTokens,
        safetyBufferTokens: thread.policy.safetyBufferTokens,
        rehydrationReserveTokens: thread.policy.rehydrationReserveTokens,
      }),
      provider: input.provider,
      tokenizer: input.tokenizer,
      cache: input.cache,
    });
    return { report: rendered.report.recall, messageTokens: rendered.tokens.messages };
  } catch (error) {
    // Over the ceiling even after the emergency fit: the target trigger's business, not recall's.
    if (error instanceof RenderBudgetExceededError) return undefined;
    throw error;
  }
}

/**
 * ADR-0430: a commit now saves the break only if the break is still to come (the previous call's
 * request, rendered under this plan, still sent the blocks from that place on: it was made after the
 * commit and left nothing out there), and pays only if the break is at least the share of a commit
 * spent early (core's `earlyCommitPays`).
 */
function breakWorthACommit(
  now: RenderedRecall,
  thread: Thread,
  plan: CompactionPlan,
  input: Parameters<typeof recallBlocksTrigger>[0],
): boolean {
  const from = now.report.leftOutFromTokens;
  if (from === undefined) return false;
  const sent = previousCallLength(thread.messages);
  // No call since the commit: the next request is the plan's first and writes after the summaries anyway.
  if (sent === undefined || (thread.messages[sent - 1]?.seq ?? -1) <= plan.basedOnSeq) return false;
  const previous = renderedRecall({ ...thread, messages: thread.messages.slice(0, sent) }, plan, input);
  const previousFrom = previous?.report.leftOutFromTokens;
  if (previousFrom !== undefined && previousFrom <= from) return false;
  return earlyCommitPays({
    messageTokens: input.messageTokens,
    highWater: input.highWaterTokens,
    low: input.floorTokens,
    commitTokens: Math.max(0, input.floorTokens - stableSummaryTokens(plan)),
    breakTokens: Math.max(0, now.messageTokens - from),
  });
}

/**
 * How many messages the previous model call was sent: those before the newest assistant message of
 * the root agent that follows a message of another role (an answer split over several messages is one
 * call). Undefined when no call was made yet.
 */
function previousCallLength(messages: readonly ThreadMessage[]): number | undefined {
  for (let index = messages.length - 1; index > 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.subagentId !== undefined) continue;
    if (messages[index - 1]!.role !== 'assistant') return index;
  }
  return undefined;
}
