import type { ThreadMessage } from '@compactor/core';
import { pruneMessages } from 'ai';
import { messageIdOf, type SurvivingMessage, survivingParts, toModelMessage } from './ai-sdk-messages.js';
import type { Baseline, BaselineInput } from './baseline.js';
import { dropOldestUntilFits } from './drop-oldest.js';
import { type BaselineResult, renderSelection, resultOf } from './render-selection.js';

/** The options passed to `pruneMessages` (the AI SDK's documented reasoning and tool-call pruning). */
export const AI_SDK_PRUNE_OPTIONS = {
  reasoning: 'all',
  toolCalls: 'before-last-message',
  emptyMessages: 'remove',
} as const;

/**
 * The Vercel AI SDK's `pruneMessages` (ai@6; ai@7 needs Node 22). It removes reasoning and old tool
 * calls with their results but enforces no token budget, so, as an AI SDK user would, the oldest
 * messages are then dropped until the request fits (a dropped call takes its result along).
 */
export const aiSdkPruneBaseline: Baseline = {
  name: 'ai-sdk-prune',
  source: 'ai pruneMessages (Vercel AI SDK 6) + drop oldest messages to the ceiling',
  async run(input: BaselineInput): Promise<BaselineResult> {
    const byId = new Map(input.thread.messages.map((message) => [message.id, message]));
    const pruned = pruneMessages({
      messages: input.thread.messages.map(toModelMessage),
      ...AI_SDK_PRUNE_OPTIONS,
    });
    const surviving = new Map<string, SurvivingMessage>();
    for (const message of pruned) {
      const id = messageIdOf(message);
      const original = id === undefined ? undefined : byId.get(id);
      const survivor = original && survivingParts(original, message);
      if (survivor) surviving.set(survivor.message.id, survivor);
    }
    const afterPrune: ThreadMessage[] = [...surviving.values()].map((survivor) => survivor.message);
    const selection = dropOldestUntilFits(afterPrune, {
      cutAt: 'any-message',
      fits: (candidate) => renderSelection(input, candidate).tokens <= input.ceiling,
    });
    const measured = renderSelection(input, selection);
    const kept = selection.filter((message) => surviving.get(message.id)?.verbatim === true);
    return resultOf(
      measured,
      kept.map((message) => message.id),
      [
        `pruneMessages kept ${afterPrune.length} of ${input.thread.messages.length} messages`,
        `dropped the oldest ${afterPrune.length - selection.length} to fit`,
      ],
      selection,
    );
  },
};
