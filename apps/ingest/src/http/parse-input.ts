import { type FieldIssue, ValidationError } from '@compactor/core';
import type { z } from 'zod';

/** Zod issues as field issues, paths joined with dots (`events.0.message.role`). */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[], prefix?: string): FieldIssue[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== undefined && part !== '').join('.'),
    message: issue.message,
  }));
}

/** Parse request input with a zod schema; failures are a ValidationError listing every field. */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
  prefix?: string,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(`invalid ${what}`, toFieldIssues(result.error.issues, prefix));
}
