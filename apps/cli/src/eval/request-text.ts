/** Lower-case, whitespace collapsed: how probe texts and requests are compared. */
export function normalizeText(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Every string a provider request carries, joined and normalized. Strings holding JSON (OpenAI
 * tool-call arguments) are also opened, so a path inside arguments matches unescaped.
 */
export function requestText(request: unknown): string {
  const parts: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      parts.push(value);
      const trimmed = value.trimStart();
      if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
        try {
          visit(JSON.parse(value));
        } catch {
          // Not JSON after all: the raw string is already in.
        }
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(request);
  return normalizeText(parts.join('\n'));
}

/** Whether `needle` appears in an already normalized request text (empty needles never do). */
export function containsNormalized(haystack: string, needle: string): boolean {
  const normalized = normalizeText(needle);
  return normalized !== '' && haystack.includes(normalized);
}
