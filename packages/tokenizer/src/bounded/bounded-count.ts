import type { TokenEncoder } from '../encoders/token-encoder.js';
import type { CountingBounds } from './counting-bounds.js';
import { hasRunLongerThan, segmentText } from './segment-text.js';

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
  if (cutsOnlyExactly(text, bounds)) return encoder.countTokens(text);
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

/**
 * `countBounded` where it cuts no run and no slice inexactly, i.e. the encoder's own count; -1
 * where it would (such a text's count is not the sum of its parts' counts, ADR-0460).
 *
 * @param encoder - The base encoding.
 * @param text - What to count.
 * @param bounds - Where runs and slices are cut.
 * @returns The exact count, or -1.
 */
export function countBoundedIfExact(encoder: TokenEncoder, text: string, bounds: CountingBounds): number {
  if (cutsOnlyExactly(text, bounds)) return encoder.countTokens(text);
  for (const { inexact } of segmentText(text, bounds)) if (inexact) return -1;
  // No inexact cut: `countBounded` hands the encoder the whole text (exact cuts change nothing).
  return encoder.countTokens(text);
}

/**
 * Whether `segmentText` would cut `text` only exactly, known without cutting it: a slice is cut
 * inexactly only past two slice lengths without an exact cut, so a text of at most two slices is cut
 * inexactly only inside a run over the bound. A run check is about half of `segmentText`'s pass, and
 * most counted texts (messages, recall hits and blocks) are this short (ADR-0460).
 */
function cutsOnlyExactly(text: string, bounds: CountingBounds): boolean {
  return text.length <= 2 * bounds.sliceLength && !hasRunLongerThan(text, bounds.maxRunBytes);
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
