import { type FieldIssue, ValidationError } from '@compactor/core';

/** The part of a zod issue we report (kept structural so this package need not import zod). */
interface SchemaIssue {
  path: readonly PropertyKey[];
  message: string;
}

interface SafeParser<Output> {
  safeParse(
    value: unknown,
  ): { success: true; data: Output } | { success: false; error: { issues: SchemaIssue[] } };
}

export function toFieldIssues(issues: readonly SchemaIssue[], prefix?: string): FieldIssue[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== undefined && part !== '').join('.'),
    message: issue.message,
  }));
}

/** Parse with a schema, turning its issues into a ValidationError. */
export function parseOrThrow<Output>(schema: SafeParser<Output>, value: unknown, what: string): Output {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(`invalid ${what}`, toFieldIssues(result.error.issues));
}

export function requirePositiveInteger(value: number | undefined, field: string): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ValidationError(`${field} must be a positive whole number`, [
      { path: field, message: 'invalid' },
    ]);
  }
}
