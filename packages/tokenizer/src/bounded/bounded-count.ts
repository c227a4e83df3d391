import type { TokenEncoder } from '../encoders/token-encoder.js';
import type { CountingBounds } from './counting-bounds.js';
import { segmentText } from './segment-text.js';

/**
 * The encoder's count of `text`, in time linear in its length: the text is cut where
 * `segmentText` says, each stretch between inexact cuts is counted by the encoder, and each
 * inexact cut adds `tokensPerCut`. Exact cuts are not needed here (they only let
 * `countBoundedYielding` pause) and are skipped: they leave the count as it is. Equal to
 * `encoder.countTokens(text)` for text without over-long runs; never below it otherwise.
 *
 * @param encoder - The base encoding.
 * @param text - What to count.
 * @param bounds - Where runs and slices are cut, and what an inexact cut adds.
 * @returns The token count.
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

/** The default {@link YieldControl}: `setImmediate`, so pending I/O runs first. */
export const yieldToEventLoop: YieldControl = () => new Promise((resolve) => setImmediate(resolve));

/**
 * `countBounded`, giving the event loop back whenever `budgetMs` has passed since it last did,
 * between segments (each segment is at most about `sliceLength` characters with short pieces, a
 * few milliseconds of encoding). Same result as `countBounded`, segment for segment.
 *
 * @param encoder - The base encoding.
 * @param text - What to count.
 * @param bounds - Where runs and slices are cut, and what an inexact cut adds.
 * @param budgetMs - Counting time between yields.
 * @param yieldControl - How to yield.
 * @returns The token count.
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
