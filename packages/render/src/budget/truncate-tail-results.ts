import { stableStringify } from '@compactor/core';
import type { Piece } from '../cache/render-cache.js';
import type { PieceMaker } from '../plan/piece-maker.js';
import type { ResultEntry, Slot } from '../plan/slots.js';
import { truncateToTokens } from '../rehydration/truncate-to-tokens.js';
import { truncatedResultText } from '../synthetic-text.js';
import type { EmergencyFitReport } from './emergency-fit.js';

/** A cut piece keeps at least this much of its content; smaller pieces are not worth cutting. */
const MIN_KEPT_TOKENS = 64;
const MARKER_TOKENS = 80;

type Truncation = EmergencyFitReport['truncatedResults'][number];

interface Candidate {
  tokens: number;
  content: string;
  /** Builds the cut piece and applies it; returns the report entry. */
  apply(text: string): { piece: Piece; entry: Omit<Truncation, 'fromTokens' | 'toTokens'> };
}

function headAndTail(content: string, fromTokens: number, keep: number, maker: PieceMaker): string {
  const head = truncateToTokens(content, Math.floor(keep / 2), maker.tokenizer).text;
  const reversedTail = truncateToTokens(
    [...content].reverse().join(''),
    Math.ceil(keep / 2),
    maker.tokenizer,
  ).text;
  return truncatedResultText(head, [...reversedTail].reverse().join(''), keep, fromTokens);
}

function resultCandidate(slot: Slot, result: ResultEntry, maker: PieceMaker): Candidate | undefined {
  const part = result.part;
  if (result.state !== 'raw' || !part) return undefined;
  return {
    tokens: result.piece.tokens,
    content: typeof part.content === 'string' ? part.content : stableStringify(part.content),
    apply(text) {
      const piece = maker.truncatedResult(part, result.exchange, text);
      slot.tokens -= result.piece.tokens - piece.tokens;
      result.piece = piece;
      result.state = 'truncated';
      return {
        piece,
        entry: {
          kind: 'tool_result',
          messageId: result.message!.id,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
        },
      };
    },
  };
}

/** Harness output injected as a user message (shell output, reminders): cut like a tool result. */
function syntheticCandidate(slot: Slot, maker: PieceMaker): Candidate | undefined {
  const message = slot.anchor;
  if (
    slot.kind !== 'message' ||
    message.role !== 'user' ||
    message.synthetic !== true ||
    slot.results.length > 0
  )
    return undefined;
  if (!message.content.every((part) => part.type === 'text')) return undefined;
  return {
    tokens: slot.piece.tokens,
    content: message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
    apply(text) {
      const piece = maker.text(text, 'user');
      slot.tokens -= slot.piece.tokens - piece.tokens;
      slot.piece = piece;
      return { piece, entry: { kind: 'synthetic_message', messageId: message.id } };
    },
  };
}

/**
 * Last resort when even the protected tail does not fit (the newest exchange carries a tool result,
 * or the harness injected output, larger than the window): cut the largest such pieces to head and
 * tail, largest first, until the tail fits or nothing more can be cut. Exchanges are never split,
 * nothing is dropped, and a person's own words are never cut. Returns what it cut.
 */
export function truncateTailResults(
  slots: readonly Slot[],
  tailStart: number,
  overBy: number,
  maker: PieceMaker,
): Truncation[] {
  const candidates = slots
    .slice(tailStart)
    .flatMap((slot) => [
      ...slot.results.map((result) => resultCandidate(slot, result, maker)),
      syntheticCandidate(slot, maker),
    ])
    .filter(
      (candidate): candidate is Candidate =>
        candidate !== undefined && candidate.tokens > MIN_KEPT_TOKENS * 4,
    )
    .sort((a, b) => b.tokens - a.tokens);
  const truncated: Truncation[] = [];
  let remaining = overBy;
  for (const candidate of candidates) {
    if (remaining <= 0) break;
    const keep = Math.max(MIN_KEPT_TOKENS, candidate.tokens - remaining - MARKER_TOKENS);
    const fromTokens = candidate.tokens;
    const text = headAndTail(candidate.content, fromTokens, keep, maker);
    const { piece, entry } = candidate.apply(text);
    remaining -= fromTokens - piece.tokens;
    truncated.push({ ...entry, fromTokens, toTokens: piece.tokens });
  }
  return truncated;
}
