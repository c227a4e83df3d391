/** `JSON.stringify`'s replacer: called with the holder as `this`, after `toJSON`. */
export type JsonReplacer = (this: unknown, key: string, value: unknown) => unknown;

/**
 * `JSON.stringify(value, replacer)`, for any depth. The native one recurses on the machine stack
 * and throws `RangeError` a few thousand levels down (5,000-deep tool input is valid JSON that a
 * client can send); then the same text is produced by an explicit stack instead. Shallow values,
 * which are all ordinary ones, take the native path and its speed.
 *
 * @param value - Any value.
 * @param replacer - As `JSON.stringify`'s.
 * @returns The JSON text, or undefined where `JSON.stringify` gives undefined.
 * @throws What the native call throws other than `RangeError` (a `TypeError` for a cycle or a BigInt).
 */
export function stringifyJson(value: unknown, replacer?: JsonReplacer): string | undefined {
  try {
    return replacer ? JSON.stringify(value, replacer) : JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyWithoutRecursion(value, replacer);
  }
}

interface Frame {
  container: Record<string, unknown> | unknown[];
  isArray: boolean;
  keys: readonly string[];
  index: number;
  parts: string[];
  /** The key under which the child being serialized will be written. */
  childKey: string;
}

type Prepared = { text: string | undefined } | { frame: Frame };

function isBoxedPrimitive(value: object): boolean {
  return value instanceof Number || value instanceof String || value instanceof Boolean;
}

/** The same algorithm as ECMA-262 SerializeJSONProperty / SerializeJSONObject / SerializeJSONArray, iteratively. */
export function stringifyWithoutRecursion(root: unknown, replacer?: JsonReplacer): string | undefined {
  const active = new Set<object>();

  function prepare(holder: unknown, key: string, raw: unknown): Prepared {
    let value = raw;
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
      const toJson = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJson === 'function') value = toJson.call(value, key);
    }
    if (replacer) value = replacer.call(holder, key, value);
    if (value === null) return { text: 'null' };
    if (typeof value !== 'object') {
      // Strings, numbers, booleans and bigints (which throw, as natively) serialize without depth.
      return {
        text: typeof value === 'function' || typeof value === 'symbol' ? undefined : JSON.stringify(value),
      };
    }
    if (isBoxedPrimitive(value)) return { text: JSON.stringify(value) };
    if (active.has(value)) throw new TypeError('Converting circular structure to JSON');
    active.add(value);
    const isArray = Array.isArray(value);
    return {
      frame: {
        container: value as Record<string, unknown> | unknown[],
        isArray,
        keys: isArray ? [] : Object.keys(value),
        index: 0,
        parts: [],
        childKey: '',
      },
    };
  }

  function write(frame: Frame, key: string, text: string | undefined): void {
    if (frame.isArray) frame.parts.push(text ?? 'null');
    else if (text !== undefined) frame.parts.push(`${JSON.stringify(key)}:${text}`);
  }

  const first = prepare({ '': root }, '', root);
  if ('text' in first) return first.text;
  const stack: Frame[] = [first.frame];
  for (;;) {
    const frame = stack[stack.length - 1]!;
    const length = frame.isArray ? (frame.container as unknown[]).length : frame.keys.length;
    if (frame.index >= length) {
      stack.pop();
      active.delete(frame.container);
      const text = frame.isArray ? `[${frame.parts.join(',')}]` : `{${frame.parts.join(',')}}`;
      const parent = stack[stack.length - 1];
      if (!parent) return text;
      write(parent, parent.childKey, text);
      continue;
    }
    const key = frame.isArray ? String(frame.index) : frame.keys[frame.index]!;
    frame.index++;
    const child = (frame.container as Record<string, unknown>)[key];
    const prepared = prepare(frame.container, key, child);
    if ('frame' in prepared) {
      frame.childKey = key;
      stack.push(prepared.frame);
    } else write(frame, key, prepared.text);
  }
}
