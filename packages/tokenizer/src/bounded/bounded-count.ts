import type { TokenEncoder } from '../encoders/token-encoder.js';
import type { CountingBounds } from './counting-bounds.js';
import { segmentText } from './segment-text.js';

/**
 * The encoder's count of `text`, in time linear in its length: the text is cut where
 * `segmentText` says, each stretch between inexact cuts is counted by the encoder, and each
 * inexact cut adds `tokensPerCut`. Exact cuts are not needed here (they only let
 * `countBoundedYielding` pause) and are skipped: they leave the count as it is. Equal to
 * `encoder.countTokens(text)` for text without over-long runs; never below it otherwise.
 */
export function countBounded(encoder: TokenEncoder, text: string, bounds: CountingBounds): number {
  let total = 0;
  let start = 0;
  for (const { end, inexact } of segmentText(text, bounds)) {
    if (!inexact && end < text.length) continue;
    total += encoder.countTokens(start === 0 && end === text.length ? text : text.slice(start, end));
    if (inexact) total += bounds.tokensPerCut;
    start = end;
  }
  return total;
}

/** Lets other work run; resolves on a later turn of the event loop. */
export type YieldControl = () => Promise<void>;

export const yieldToEventLoop: YieldControl = () => new Promise((resolve) => setImmediate(resolve));

/**
 * `countBounded`, giving the event loop back whenever `budgetMs` has passed since it last did,
 * between segments (each segment is at most about `sliceLength` characters with short pieces, a
 * few milliseconds of encoding). Same result as `countBounded`, segment for segment.
 */
export async function countBoundedYielding(
  encoder: TokenEncoder,
  text: string,
  bounds: CountingBounds,
  budgetMs: number,
  yieldControl: YieldControl = yieldToEventLoop,
): Promise<number> {
  let total = 0;
  let start = 0;
  let since = performance.now();
  for (const { end, inexact } of segmentText(text, bounds)) {
    total += encoder.countTokens(start === 0 && end === text.length ? text : text.slice(start, end));
    if (inexact) total += bounds.tokensPerCut;
    start = end;
    if (performance.now() - since >= budgetMs) {
      await yieldControl();
      since = performance.now();
    }
  }
  return total;
}
