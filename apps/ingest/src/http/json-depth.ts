/**
 * How deep a request body's JSON may nest (ADR-0047). Deep enough for any real tool-call input;
 * shallow enough that no recursive walk (zod, the tokenizer's canonical JSON, stable stringify)
 * can overflow the stack on it.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests objects or arrays more than `maxDepth` levels; iterative, so any depth is safe. */
export function exceedsJsonDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== 'object') continue;
    const level = depth + 1;
    if (level > maxDepth) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: level });
    }
  }
  return false;
}
