import { z } from 'zod';

const DECIMAL_INTEGER = /^(?:0|[1-9]\d{0,14})$/;

/**
 * A whole number in a query string, written in plain decimal digits only: `1000`, not `1e3`,
 * `0x10`, ` 12` or `12.0` (which `Number()` would all accept). Fifteen digits at most, so the value
 * is a safe integer.
 */
export function queryInteger(bounds: { min: number; max?: number }) {
  const digits = z.string().regex(DECIMAL_INTEGER, 'a whole number in decimal digits, e.g. 100');
  let number = z.number().int().min(bounds.min);
  if (bounds.max !== undefined) number = number.max(bounds.max);
  return digits.transform(Number).pipe(number);
}
