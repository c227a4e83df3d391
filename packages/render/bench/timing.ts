/** The nearest-rank percentile of `samples` (`fraction` in 0..1). */
export function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * (sorted.length - 1)))]!;
}

/** Milliseconds `run` took. */
export function time(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}
