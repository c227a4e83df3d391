import { z } from 'zod';

/**
 * Parsers for single environment variables. An empty value counts as unset, because
 * docker-compose and `.env` files write `NAME=` for a variable left blank.
 */
function unsetIfEmpty(value: unknown): unknown {
  return typeof value === 'string' && value.trim() === '' ? undefined : value;
}

export function optionalText() {
  return z.preprocess(unsetIfEmpty, z.string().trim().optional());
}

export function textWithDefault(defaultValue: string) {
  return z.preprocess(unsetIfEmpty, z.string().trim().default(defaultValue));
}

export function choice<const Options extends readonly [string, ...string[]]>(
  options: Options,
  defaultValue: Options[number],
) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .enum(options, { error: `must be one of ${options.map((option) => `"${option}"`).join(', ')}` })
      .default(defaultValue as never),
  );
}

export function wholeNumber(defaultValue: number, minimum: number) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string({ error: 'must be a whole number' })
      .trim()
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(minimum, `must be at least ${minimum}`))
      .default(defaultValue as never),
  );
}

/** A whole number at least `minimum`, or undefined when unset. */
export function optionalWholeNumber(minimum: number) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string({ error: 'must be a whole number' })
      .trim()
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(minimum, `must be at least ${minimum}`))
      .optional(),
  );
}

const TRUE_VALUES = ['true', '1', 'yes', 'on'];
const FALSE_VALUES = ['false', '0', 'no', 'off'];

export function optionalBoolean() {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((value) => TRUE_VALUES.includes(value) || FALSE_VALUES.includes(value), {
        message: `must be one of ${[...TRUE_VALUES, ...FALSE_VALUES].join(', ')}`,
      })
      .transform((value) => TRUE_VALUES.includes(value))
      .optional(),
  );
}

/** A URL whose scheme is one of `schemes` (e.g. `redis:`), so a swapped variable fails at start. */
export function optionalUrl(schemes: readonly string[]) {
  const expected = schemes.map((scheme) => `${scheme}//`).join(' or ');
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .refine((value) => schemes.includes(protocolOf(value) ?? ''), {
        message: `must be a URL starting with ${expected}`,
      })
      .optional(),
  );
}

function protocolOf(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

/** A PostgreSQL schema name the stores accept: lower-case letters, digits and _, up to 40 characters. */
export function postgresSchemaName(defaultValue: string) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .regex(/^[a-z_][a-z0-9_]{0,39}$/, 'must be lower-case letters, digits and _, at most 40 characters')
      .default(defaultValue),
  );
}
