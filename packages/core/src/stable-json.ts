/**
 * JSON with object keys sorted at every depth: the same value always gives the same bytes.
 *
 * @param value - Any JSON-able value.
 * @returns The JSON text.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}

function sortKeysDeep(value: unknown): unknown {
  // Convert what JSON.stringify would convert (dates) before sorting, or a Date would become {}.
  if (hasToJSON(value)) return sortKeysDeep(value.toJSON());
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const child = (value as Record<string, unknown>)[key];
      if (child !== undefined) sorted[key] = sortKeysDeep(child);
    }
    return sorted;
  }
  return value;
}

function hasToJSON(value: unknown): value is { toJSON: () => unknown } {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}
