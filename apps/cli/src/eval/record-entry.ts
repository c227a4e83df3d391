/** The entry of `record` at `key`, created with `make` when absent. */
export function entryOf<T>(record: Record<string, T>, key: string, make: () => T): T {
  const existing = record[key];
  if (existing !== undefined) return existing;
  const created = make();
  record[key] = created;
  return created;
}
