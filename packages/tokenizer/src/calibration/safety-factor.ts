import { percentile } from './error-statistics.js';

/**
 * The smallest factor ≥ 1 that makes `factor × fitted ≥ actual` for at least `overCountShare`
 * of the samples: the `overCountShare` quantile of actual / fitted.
 */
export function safetyFactorFor(
  fitted: readonly number[],
  actual: readonly number[],
  overCountShare: number,
): number {
  const ratios = fitted
    .map((estimate, index) => (estimate > 0 ? (actual[index] ?? 0) / estimate : Number.POSITIVE_INFINITY))
    .sort((a, b) => a - b);
  const factor = percentile(ratios, overCountShare);
  return Number.isFinite(factor) ? Math.max(1, factor) : 1;
}
