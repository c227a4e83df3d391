import type { DropRecord } from '../../plan/records.js';
import { spanOf } from '../../plan/span.js';
import { structuralTurnCandidates } from '../candidates.js';
import { buildDroppedSpanIndex } from '../dropped-span-index.js';
import type { Proposal, Rung } from '../planner-types.js';

/**
 * Last resort: the oldest whole turns outside the protected tail leave the prompt. Summaries are
 * never dropped (they are the memory of what was compacted before); pinned messages stay.
 */
export const dropRung: Rung = {
  name: 'drop',
  analyze(context) {
    if (context.input.rehydrationHappened) return [];
    return [...structuralTurnCandidates(context)].map(
      (candidate): Proposal => ({
        rung: 'drop',
        span: spanOf(candidate.messages),
        estimatedTokensFreed: candidate.messages.reduce(
          (total, message) => total + context.input.countMessage(message),
          0,
        ),
        reason: `turn ${candidate.turn} is the oldest outside the protected tail and the target is still not met`,
      }),
    );
  },
  async execute(context, proposal) {
    const ids = new Set(proposal.span.messageIds);
    const messages = context.input.thread.messages.filter((message) => ids.has(message.id));
    const record: DropRecord = {
      kind: 'drop',
      span: proposal.span,
      reason: proposal.reason,
      index: buildDroppedSpanIndex(messages),
    };
    return { added: [record] };
  },
};
