/**
 * Split text holding several JSON values written back to back (`{...}{...}`), as happens when
 * two JSONL records lose the newline between them. Scans braces outside strings, so a `}{`
 * inside a string value never splits. Returns undefined when the text is not such a sequence.
 */
export function splitConcatenatedJson(text: string): string[] | undefined {
  const pieces: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth < 0) return undefined;
      if (depth === 0) pieces.push(text.slice(start, index + 1));
    } else if (depth === 0 && !/\s/.test(char ?? '')) {
      // Anything but whitespace between top-level values means this is not a glued sequence.
      return undefined;
    }
  }
  if (depth !== 0 || inString || pieces.length === 0) return undefined;
  return pieces;
}
