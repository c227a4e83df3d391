import { ValidationError } from '@compactor/core';
import type { ErrorStatistics } from './error-statistics.js';
import { errorStatistics } from './error-statistics.js';
import { nonNegativeLeastSquares } from './least-squares.js';
import { safetyFactorFor } from './safety-factor.js';

/**
 * One observation from your own logs: the exact base-encoding count of what you sent (e.g.
 * `tokenizer.countExact(...)` or an uncalibrated `countRequest`) and the provider's reported
 * `usage.input_tokens` for it. `items` (messages, blocks) lets a fixed per-item overhead be learned.
 */
export interface RatioSample {
  exactTokens: number;
  actualTokens: number;
  items?: number;
}

/** How {@link calibrateRatio} fits. */
export interface CalibrateRatioOptions {
  /**
   * Share of samples the safe estimate must not under-count (0–1).
   * @defaultValue 0.9
   */
  overCountShare?: number;
  /**
   * Learn a per-item overhead.
   * @defaultValue true when every sample has `items`
   */
  fitItemOverhead?: boolean;
}

/** A fitted ratio and overhead, the safety factor on top, and how far each estimate errs. */
export interface RatioCalibrationResult {
  ratio: number;
  overheadPerItem: number;
  /** Multiplies `ratio × exact + overhead × items` so that `overCountShare` of samples are over-counted. */
  safetyFactor: number;
  sampleCount: number;
  /** Error of the unbiased fit (`ratio × exact + overhead × items`). */
  fitted: ErrorStatistics;
  /** Error of the safe estimate (the fit times `safetyFactor`), the one to use for budgets. */
  safe: ErrorStatistics;
}

function checkSamples(samples: readonly RatioSample[]): void {
  if (samples.length === 0) throw new ValidationError('calibrateRatio needs at least one sample');
  samples.forEach((sample, index) => {
    for (const field of ['exactTokens', 'actualTokens'] as const) {
      const value = sample[field];
      if (!Number.isFinite(value) || value <= 0) {
        throw new ValidationError(`sample ${index}: ${field} must be a positive number`, [
          { path: `samples.${index}.${field}`, message: `got ${value}` },
        ]);
      }
    }
  });
}

/**
 * Learns `actual ≈ ratio × exact (+ overhead × items)` from provider-reported counts. Pure.
 * Weighted least squares with weight 1/actual, so small and large samples both matter (plain
 * least squares lets the few huge samples decide); coefficients are kept ≥ 0.
 *
 * @param samples - Observations from your logs.
 * @param options - The over-count share and whether to learn an item overhead.
 * @returns The fit, its safety factor and error statistics.
 * @throws ValidationError without samples, for a non-positive count, or an `overCountShare` outside (0, 1].
 */
export function calibrateRatio(
  samples: readonly RatioSample[],
  options: CalibrateRatioOptions = {},
): RatioCalibrationResult {
  checkSamples(samples);
  const overCountShare = options.overCountShare ?? 0.9;
  if (!(overCountShare > 0 && overCountShare <= 1)) {
    throw new ValidationError('overCountShare must be in (0, 1]', [
      { path: 'overCountShare', message: `got ${overCountShare}` },
    ]);
  }
  const withItems = options.fitItemOverhead ?? samples.every((sample) => sample.items !== undefined);
  const rows = samples.map((sample) =>
    withItems ? [sample.exactTokens, sample.items ?? 0] : [sample.exactTokens],
  );
  const actual = samples.map((sample) => sample.actualTokens);
  const [ratio = 0, overheadPerItem = 0] = nonNegativeLeastSquares(
    rows,
    actual,
    actual.map((value) => 1 / value),
  ).map((value) => value ?? 0);
  const fitted = samples.map(
    (sample) => ratio * sample.exactTokens + overheadPerItem * (withItems ? (sample.items ?? 0) : 0),
  );
  const safetyFactor = safetyFactorFor(fitted, actual, overCountShare);
  return {
    ratio,
    overheadPerItem,
    safetyFactor,
    sampleCount: samples.length,
    fitted: errorStatistics(fitted.map((estimate, index) => ({ estimate, actual: actual[index]! }))),
    safe: errorStatistics(
      fitted.map((estimate, index) => ({
        estimate: Math.ceil(estimate * safetyFactor),
        actual: actual[index]!,
      })),
    ),
  };
}
