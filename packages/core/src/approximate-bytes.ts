/** Header bytes V8 spends on a string, an object and an array, and on each property or element slot. */
const STRING_HEADER = 24;
const OBJECT_HEADER = 32;
const ARRAY_HEADER = 16;
const SLOT = 8;

/**
 * A rough upper estimate of the memory a JSON-like value holds: strings at two bytes a character,
 * plus object, array and slot overheads. Used to keep caches (render memos, folded threads) within their byte budgets;
 * run only on what a cache adds (a miss), never on a hit.
 */
export function approximateBytes(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      bytes += STRING_HEADER + 2 * next.length;
    } else if (Array.isArray(next)) {
      bytes += ARRAY_HEADER + SLOT * next.length;
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      bytes += OBJECT_HEADER;
      for (const key in next) {
        bytes += SLOT + STRING_HEADER + 2 * key.length;
        pending.push((next as Record<string, unknown>)[key]);
      }
    } else {
      bytes += SLOT;
    }
  }
  return bytes;
}
