import { clearability } from '../../durability/clearability.js';
import { collectKeyFields, resolveToolDurability } from '../../durability/policy.js';
import type { ClearRecord } from '../../plan/records.js';
import { spanOf } from '../../plan/span.js';
import type { ToolResultPart } from '../../schemas/content.js';
import { shrinkableToolMessages } from '../candidates.js';
import type { Proposal, Rung } from '../planner-types.js';

/** What a placeholder costs once rendered: tool name, outcome, key fields. */
const PLACEHOLDER_TOKENS = 30;

/**
 * Replace tool results with placeholders that keep tool name, outcome and key fields, for every
 * result `clearability` allows (oldest first within each order; the renderer's emergency fit uses
 * the same rule).
 */
export const clearRung: Rung = {
  name: 'clear',
  analyze(context) {
    const proposals: Array<Proposal & { order: number; index: number }> = [];
    for (const message of shrinkableToolMessages(context)) {
      const parts = message.content.filter((part): part is ToolResultPart => part.type === 'tool_result');
      if (parts.length === 0) continue;
      let order = -1;
      let reason = '';
      for (const part of parts) {
        const verdict = clearability(part, context.policy.toolDurability, context.input.currentDeterminism);
        if (!verdict) {
          order = -1;
          break;
        }
        order = Math.max(order, verdict.order);
        reason = verdict.reason;
      }
      if (order < 0) continue;
      const tokens = context.input.countMessage(message);
      if (tokens <= PLACEHOLDER_TOKENS) continue;
      proposals.push({
        rung: 'clear',
        span: spanOf([message]),
        estimatedTokensFreed: tokens - PLACEHOLDER_TOKENS,
        reason,
        order,
        index: message.index,
      });
    }
    return proposals
      .sort((a, b) => a.order - b.order || a.index - b.index)
      .map(({ order: _order, index: _index, ...proposal }) => proposal);
  },
  async execute(context, proposal) {
    const message = context.index.byId.get(proposal.span.messageIds[0]!);
    if (!message) return null;
    const preserved = message.content
      .filter((part): part is ToolResultPart => part.type === 'tool_result')
      .map((part) => ({
        messageId: message.id,
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        outcome: part.outcome,
        keyFields: collectKeyFields(
          part,
          resolveToolDurability(part, context.policy.toolDurability).mustPreserveFields,
        ),
      }));
    const record: ClearRecord = { kind: 'clear', span: proposal.span, preserved };
    return { added: [record] };
  },
};
