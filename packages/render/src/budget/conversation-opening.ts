import type { Piece } from '../cache/render-cache.js';
import type { PieceMaker } from '../plan/piece-maker.js';
import type { Slot } from '../plan/slots.js';
import { CONTINUATION_TEXT } from '../synthetic-text.js';

/**
 * How the conversation opens validly. Anthropic (and the portable AI SDK profile) need a user
 * message first: a summary or pointer that would open the conversation is sent with the user role
 * (same text, same stable prefix); an assistant message gets a fixed continuation note before it.
 * Every provider gets that note when no message is left at all.
 */
export interface Opening {
  /** Sent before the first slot. */
  prepend: Piece | undefined;
  /** Replaces the first slot's own piece (a synthetic message sent as user). */
  firstPiece: Piece | undefined;
  /** Tokens this adds to the slots' own total (may be negative when a role costs less). */
  extraTokens: number;
}

const NONE: Opening = { prepend: undefined, firstPiece: undefined, extraTokens: 0 };

export function openingFor(first: Slot | undefined, maker: PieceMaker): Opening {
  if (!first) {
    const prepend = maker.text(CONTINUATION_TEXT, 'user');
    return { prepend, firstPiece: undefined, extraTokens: prepend.tokens };
  }
  if (!maker.format.userFirst || first.piece.role === 'user' || first.opens) return NONE;
  if (first.kind === 'synthetic' && first.record) {
    const firstPiece = maker.record(first.record, 'user');
    return { prepend: undefined, firstPiece, extraTokens: firstPiece.tokens - first.piece.tokens };
  }
  const prepend = maker.text(CONTINUATION_TEXT, 'user');
  return { prepend, firstPiece: undefined, extraTokens: prepend.tokens };
}
