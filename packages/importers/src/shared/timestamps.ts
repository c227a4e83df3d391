const isoWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A timestamp as the canonical log wants it (ISO 8601 with an offset), or undefined.
 * ISO strings are kept as written; epoch numbers (milliseconds, or seconds when small) and
 * other parseable date strings are converted to UTC.
 */
export function toIsoTimestamp(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (isoWithOffset.test(trimmed)) return trimmed;
    if (trimmed === '' || !/\d/.test(trimmed)) return undefined;
    const parsed = Date.parse(trimmed);
    return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
  }
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    // Below 1e11 a number is far more plausibly seconds than milliseconds (1e11 ms is 1973).
    const milliseconds = value < 1e11 ? value * 1000 : value;
    const date = new Date(milliseconds);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  }
  return undefined;
}
