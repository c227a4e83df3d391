import {
  type CurrentDeterminism,
  type Logger,
  protectedTail,
  type Thread,
  unitTokensFrom,
} from '@compactor/core';
import type { PieceMaker } from '../plan/piece-maker.js';
import type { Slot } from '../plan/slots.js';
import { RenderBudgetExceededError, type RenderBudgetNumbers } from '../render-errors.js';
import { openingFor } from './conversation-opening.js';
import { conversationTokens, type EmergencyFitReport, emergencyFit } from './emergency-fit.js';
import { truncateTailResults } from './truncate-tail-results.js';

export interface FitConversationInput {
  thread: Thread;
  slots: Slot[];
  maker: PieceMaker;
  /** Everything but the protected tail, which this function measures. */
  numbers: Omit<RenderBudgetNumbers, 'protectedTail'>;
  /** The planner's target for the conversation: an emergency fit cuts back to about it (ADR-0142). */
  target: number;
  countText: (text: string) => number;
  logger: Logger | undefined;
  /** Replayable sources the runtime verified (ADR-0193). */
  currentDeterminism?: CurrentDeterminism | undefined;
}

/**
 * Keep the conversation within what the ceiling leaves it: as it is when it fits, through the
 * emergency fit when it does not, or a typed error with the numbers when even the protected tail
 * (core's `protectedTail`, the same the planner protects) cannot fit.
 */
export function fitConversation({
  thread,
  slots,
  maker,
  numbers,
  target,
  countText,
  logger,
  currentDeterminism,
}: FitConversationInput): {
  messageTokens: number;
  emergency: EmergencyFitReport | null;
} {
  const limit = numbers.availableForMessages;
  const messageTokens = conversationTokens(slots, maker);
  if (messageTokens <= limit) return { messageTokens, emergency: null };
  const policy = thread.policy;
  // The planner's protected tail (core's one definition); the long-turn exception applies only
  // when the turn tail cannot fit at all, so a long agent turn still renders.
  const tailStart = protectedTail(slots, {
    keepRecentTurns: policy.keepRecentTurns,
    keepRecentTokens: policy.keepRecentTokens,
    lastTurn: thread.messages.at(-1)?.turn ?? 0,
    shrinkAbove: limit,
  }).start;
  const tailTokens = () => unitTokensFrom(slots, tailStart) + openingFor(slots[tailStart], maker).extraTokens;
  const tailTokenCount = tailTokens();
  // Even the newest exchange is over: cut its oversized tool results before refusing to render.
  const truncatedResults =
    tailTokenCount > limit ? truncateTailResults(slots, tailStart, tailTokenCount - limit, maker) : [];
  if (tailTokens() > limit) throw new RenderBudgetExceededError({ ...numbers, protectedTail: tailTokens() });
  const fitted = emergencyFit({
    slots,
    limit,
    target,
    tailStart,
    maker,
    policy,
    countText,
    currentDeterminism,
  });
  const fittedTokens = conversationTokens(slots, maker);
  const emergency: EmergencyFitReport | null =
    fitted || truncatedResults.length > 0
      ? {
          overBy: messageTokens - limit,
          tokensFreed: messageTokens - fittedTokens,
          clearedResults: fitted?.clearedResults ?? [],
          abridgedMessages: fitted?.abridgedMessages ?? [],
          truncatedResults,
          dropped: fitted?.dropped ?? [],
          trimmedSummaries: fitted?.trimmedSummaries ?? [],
          step: fitted?.step ?? null,
        }
      : null;
  logger?.warn(
    { threadId: thread.id, overBy: emergency?.overBy, tokensFreed: emergency?.tokensFreed },
    'render needed an emergency fit; the thread should be compacted',
  );
  return { messageTokens: fittedTokens, emergency };
}
