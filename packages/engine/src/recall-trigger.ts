import {
  type CompactionPlan,
  type ProviderName,
  type Thread,
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
 * takes from the window instead) under the append placement, and its recall report read.
 *
 * @param input - The thread, its plan, tokenizer, wire format, the engine's render cache, the caller's
 *   system prompt and tool tokens, the message tokens measured under the plan and the floor below which
 *   the check does not fire (a commit goes down to about there: no commit right after a commit).
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
}): TriggerDecision | undefined {
  const { thread, plan } = input;
  const recall = thread.policy.recall;
  if (!recall.enabled || !recall.appendCommitWhenLeftOut || plan === null) return undefined;
  if (input.messageTokens < input.floorTokens) return undefined;
  const append =
    recall.placement === 'append' ||
    (recall.placement === 'auto' && threadKindOf(thread.messages) === 'coding');
  if (!append) return undefined;
  let report: RecallReport;
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
    report = rendered.report.recall;
  } catch (error) {
    // Over the ceiling even after the emergency fit: the target trigger's business, not recall's.
    if (error instanceof RenderBudgetExceededError) return undefined;
    throw error;
  }
  const decision = (reason: string): TriggerDecision => ({ fire: true, trigger: RECALL_TRIGGER, reason });
  const blocks = `plan version ${plan.version}'s recall blocks`;
  if (report.leftOutTokens !== undefined)
    return decision(
      `${report.leftOutTokens} tokens of ${blocks} no longer fit beside ${input.messageTokens} message tokens`,
    );
  if (report.epochRestarted) return decision(`the newest turn found no room beside ${blocks} (a new epoch)`);
  return undefined;
}
