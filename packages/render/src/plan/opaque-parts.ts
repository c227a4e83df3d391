import type { Thread } from '@compactor/core';
import type { ProviderFormat } from '../providers/provider-format.js';
import type { Slot } from './slots.js';
import type { ToolExchangeIndex } from './tool-exchanges.js';

/** What a render did with providers' opaque parts (ADR-0250). */
export interface OpaqueReport {
  /** Opaque parts sent verbatim, in place, to their own provider. */
  sent: number;
  /** Opaque parts of another provider, left out of this format. */
  omitted: number;
  /**
   * Messages of the log before the provider's compaction block that opens this request: the block
   * stands for them (Anthropic takes it only as the conversation's first block).
   */
  beforeServerCompaction: number;
}

/**
 * Start the conversation at the newest provider compaction block that must open it (Anthropic's
 * `compaction` with content, ADR-0250): the slots before its message are removed (the message's own
 * earlier blocks were left out when it was prepared) and its slot opens the conversation as it is.
 * Then count the opaque parts the request sends and those this format leaves out.
 *
 * @param thread - The folded thread.
 * @param slots - The render's slots, changed in place.
 * @param exchanges - The thread's index, with the positions of messages holding opaque parts.
 * @param format - The provider format.
 * @returns The opaque report and the warnings to add.
 */
export function applyOpaqueParts(
  thread: Thread,
  slots: Slot[],
  exchanges: ToolExchangeIndex,
  format: ProviderFormat,
): { report: OpaqueReport; warnings: string[] } {
  const report: OpaqueReport = { sent: 0, omitted: 0, beforeServerCompaction: 0 };
  const positions = exchanges.opaqueMessages;
  if (positions.length === 0) return { report, warnings: [] };
  const messages = thread.messages;
  let start = 0;
  if (format.opensConversation) {
    for (let index = positions.length - 1; index >= 0; index -= 1) {
      const message = messages[positions[index]!]!;
      const opens = message.content.some(
        (part) =>
          part.type === 'opaque' &&
          part.provider === format.provider &&
          format.opensConversation?.(part.payload) === true,
      );
      if (!opens) continue;
      const slotIndex = slots.findIndex((slot) => slot.kind === 'message' && slot.anchor === message);
      if (slotIndex < 0) break;
      slots.splice(0, slotIndex);
      slots[0]!.opens = true;
      start = positions[index]!;
      report.beforeServerCompaction = start;
      break;
    }
  }
  const omittedBy = new Set<string>();
  for (const position of positions) {
    if (position < start) continue;
    for (const part of messages[position]!.content) {
      if (part.type !== 'opaque') continue;
      if (part.provider === format.provider) report.sent += 1;
      else {
        report.omitted += 1;
        omittedBy.add(part.provider);
      }
    }
  }
  const warnings =
    report.omitted > 0
      ? [
          `${report.omitted} opaque part(s) of ${[...omittedBy].join(', ')} left out: only their own provider takes them back`,
        ]
      : [];
  return { report, warnings };
}
