import { stableStringify } from '@compactor/core';
import type { PieceMaker } from '../plan/piece-maker.js';
import type { Slot } from '../plan/slots.js';
import { truncateToTokens } from '../rehydration/truncate-to-tokens.js';
import { truncatedResultText } from '../synthetic-text.js';
import type { EmergencyFitReport } from './emergency-fit.js';

/** A truncated result keeps at least this much of its content. */
const MIN_KEPT_TOKENS = 64;

/**
 * Last resort when even the protected tail does not fit (the newest exchange carries a tool result
 * larger than the window): cut the tail's largest raw tool results to head and tail, largest first,
 * until it fits or nothing more can be cut. Exchanges are never split and nothing is dropped.
 * Returns what it cut (empty when it could not help).
 */
export function truncateTailResults(
  slots: readonly Slot[],
  tailStart: number,
  overBy: number,
  maker: PieceMaker,
): EmergencyFitReport['truncatedResults'] {
  const candidates = slots
    .slice(tailStart)
    .flatMap((slot) => slot.results.map((result) => ({ slot, result })))
    .filter(
      ({ result }) =>
        result.state === 'raw' && result.part !== undefined && result.piece.tokens > MIN_KEPT_TOKENS * 4,
    )
    .sort((a, b) => b.result.piece.tokens - a.result.piece.tokens);
  const truncated: EmergencyFitReport['truncatedResults'] = [];
  let remaining = overBy;
  for (const { slot, result } of candidates) {
    if (remaining <= 0) break;
    const part = result.part!;
    const content = typeof part.content === 'string' ? part.content : stableStringify(part.content);
    const fromTokens = result.piece.tokens;
    // Leave room for the marker line; keep half from the head and half from the tail.
    const keep = Math.max(MIN_KEPT_TOKENS, fromTokens - remaining - 80);
    const head = truncateToTokens(content, Math.floor(keep / 2), maker.tokenizer).text;
    const reversedTail = truncateToTokens(
      [...content].reverse().join(''),
      Math.ceil(keep / 2),
      maker.tokenizer,
    ).text;
    const text = truncatedResultText(head, [...reversedTail].reverse().join(''), keep, fromTokens);
    const piece = maker.truncatedResult(part, result.exchange, text);
    const saving = fromTokens - piece.tokens;
    if (saving <= 0) continue;
    result.piece = piece;
    result.state = 'truncated';
    slot.tokens -= saving;
    remaining -= saving;
    truncated.push({
      messageId: result.message!.id,
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      fromTokens,
      toTokens: piece.tokens,
    });
  }
  return truncated;
}
