import type { Logger, Thread } from '@compactor/core';
import type { PieceMaker } from '../plan/piece-maker.js';
import type { Slot } from '../plan/slots.js';
import { RenderBudgetExceededError, type RenderBudgetNumbers } from '../render-errors.js';
import { openingFor } from './conversation-opening.js';
import { conversationTokens, type EmergencyFitReport, emergencyFit } from './emergency-fit.js';
import { protectedTailStart, tokensFrom } from './protected-tail.js';

export interface FitConversationInput {
  thread: Thread;
  slots: Slot[];
  maker: PieceMaker;
  /** Everything but the protected tail, which this function measures. */
  numbers: Omit<RenderBudgetNumbers, 'protectedTail'>;
  logger: Logger | undefined;
}

/**
 * Keep the conversation within what the ceiling leaves it: as it is when it fits, through the
 * emergency fit when it does not, or a typed error with the numbers when even the protected tail
 * (the policy's recent turns, extended to keepRecentTokens) cannot fit.
 */
export function fitConversation({ thread, slots, maker, numbers, logger }: FitConversationInput): {
  messageTokens: number;
  emergency: EmergencyFitReport | null;
} {
  const limit = numbers.availableForMessages;
  const messageTokens = conversationTokens(slots, maker);
  if (messageTokens <= limit) return { messageTokens, emergency: null };
  const policy = thread.policy;
  const lastTurn = thread.messages.at(-1)?.turn ?? 0;
  const tailStart = protectedTailStart(
    slots,
    lastTurn,
    policy.keepRecentTurns,
    policy.keepRecentTokens,
    limit,
  );
  const protectedTail = tokensFrom(slots, tailStart) + openingFor(slots[tailStart], maker).extraTokens;
  if (protectedTail > limit) throw new RenderBudgetExceededError({ ...numbers, protectedTail });
  const emergency = emergencyFit({ slots, limit, tailStart, maker, policy }) ?? null;
  logger?.warn(
    { threadId: thread.id, overBy: emergency?.overBy, tokensFreed: emergency?.tokensFreed },
    'render needed an emergency fit; the thread should be compacted',
  );
  return { messageTokens: conversationTokens(slots, maker), emergency };
}
