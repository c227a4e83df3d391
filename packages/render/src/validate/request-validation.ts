/** What every provider validator returns: valid, or the list of every rule the request breaks. */
export interface RequestValidation {
  valid: boolean;
  /** Each broken rule as `path: message`; empty when valid. */
  errors: string[];
}

export class ValidationCollector {
  readonly errors: string[] = [];

  add(path: string, message: string): void {
    this.errors.push(`${path}: ${message}`);
  }

  result(): RequestValidation {
    return { valid: this.errors.length === 0, errors: this.errors };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string with at least one non-whitespace character (what providers accept as text). */
export function isVisibleText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Function names as OpenAI and Anthropic accept them. */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Tool-call arguments as OpenAI sends them: a JSON string holding an object. */
export function isJsonObjectString(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return isRecord(JSON.parse(value));
  } catch {
    return false;
  }
}
