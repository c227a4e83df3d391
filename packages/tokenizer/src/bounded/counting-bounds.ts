import { ValidationError } from '@compactor/core';

/**
 * How counting stays linear in time. Byte-pair encoding costs the square of a pre-tokenizer
 * piece's length, and one piece can be as long as a run of one character class (a repeated
 * letter, CJK without punctuation, a line of `=`). Runs longer than `maxRunBytes` are cut into
 * chunks, so every piece the encoder sees is short; long texts are cut into slices of about
 * `sliceLength` so no single encoder call runs long.
 */
export interface CountingBounds {
  /** A run of one character class longer than this many UTF-8 bytes is cut into chunks of at most this. */
  maxRunBytes: number;
  /** Texts are counted in slices of about this many UTF-16 units (cut where the count stays exact). */
  sliceLength: number;
  /**
   * Tokens added for every cut that can change the count (inside a long run, or a slice with no
   * exact cut point), so the result only ever errs high. A cut splits at most one merge, so it
   * costs the whole at most one token more than its parts; 2 leaves a margin (see the README).
   */
  tokensPerCut: number;
}

/** Bounds that keep counting linear for every use measured (see the README). */
export const defaultCountingBounds: Readonly<CountingBounds> = Object.freeze({
  maxRunBytes: 256,
  sliceLength: 1_024,
  tokensPerCut: 2,
});

/**
 * The caller's bounds over the defaults, checked.
 *
 * @param bounds - Any of the bounds.
 * @returns Complete bounds.
 * @throws ValidationError when `maxRunBytes` is below 16, `sliceLength` below `maxRunBytes`, or
 *   `tokensPerCut` below 1 (or any is not an integer).
 */
export function resolveCountingBounds(bounds: Partial<CountingBounds> = {}): CountingBounds {
  const resolved = { ...defaultCountingBounds, ...bounds };
  const problems: { path: string; message: string }[] = [];
  if (!Number.isInteger(resolved.maxRunBytes) || resolved.maxRunBytes < 16) {
    problems.push({ path: 'maxRunBytes', message: 'expected an integer of at least 16' });
  }
  if (!Number.isInteger(resolved.sliceLength) || resolved.sliceLength < resolved.maxRunBytes) {
    problems.push({ path: 'sliceLength', message: 'expected an integer of at least maxRunBytes' });
  }
  if (!Number.isInteger(resolved.tokensPerCut) || resolved.tokensPerCut < 1) {
    problems.push({ path: 'tokensPerCut', message: 'expected a positive integer' });
  }
  if (problems.length > 0) throw new ValidationError('invalid counting bounds', problems);
  return resolved;
}
