/** One estimate and the count the API reported for the same content. */
export interface EstimatePair {
  estimate: number;
  actual: number;
}

/** How far estimates are from the API's counts, in percent of the API's count. */
export interface ErrorStatistics {
  sampleCount: number;
  meanAbsolutePercentError: number;
  medianAbsolutePercentError: number;
  p95AbsolutePercentError: number;
  maxAbsolutePercentError: number;
  /** Positive: the estimate is too high on average. */
  meanSignedPercentError: number;
  /** Share (0–1) of samples the estimate counted lower than the API did. */
  underCountShare: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(share * sorted.length)));
  return sorted[rank - 1]!;
}

/**
 * How far estimates are from the API's counts.
 *
 * @param pairs - Estimates and actual counts; pairs with an actual count of 0 are skipped.
 * @returns Mean, median, p95 and max absolute percent error, mean signed error and the under-count
 *   share (NaN figures without usable pairs).
 */
export function errorStatistics(pairs: readonly EstimatePair[]): ErrorStatistics {
  const signed = pairs
    .filter((pair) => pair.actual > 0)
    .map((pair) => ((pair.estimate - pair.actual) / pair.actual) * 100);
  const absolute = signed.map(Math.abs).sort((a, b) => a - b);
  const mean = (values: number[]) =>
    values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
  return {
    sampleCount: signed.length,
    meanAbsolutePercentError: mean(absolute),
    medianAbsolutePercentError: percentile(absolute, 0.5),
    p95AbsolutePercentError: percentile(absolute, 0.95),
    maxAbsolutePercentError: absolute.at(-1) ?? Number.NaN,
    meanSignedPercentError: mean(signed),
    underCountShare:
      signed.length === 0 ? Number.NaN : signed.filter((value) => value < 0).length / signed.length,
  };
}
