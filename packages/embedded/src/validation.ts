import { fieldIssuesFrom, type SchemaIssue, ValidationError } from '@compactor/core';

interface SafeParser<Output> {
  safeParse(
    value: unknown,
  ): { success: true; data: Output } | { success: false; error: { issues: SchemaIssue[] } };
}

/** Parse with a schema, turning its issues into a ValidationError. */
export function parseOrThrow<Output>(schema: SafeParser<Output>, value: unknown, what: string): Output {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(`invalid ${what}`, fieldIssuesFrom(result.error.issues));
}

export function requirePositiveInteger(value: number | undefined, field: string): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ValidationError(`${field} must be a positive whole number`, [
      { path: field, message: 'invalid' },
    ]);
  }
}
