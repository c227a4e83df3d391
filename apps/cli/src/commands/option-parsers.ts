import { InvalidArgumentError } from 'commander';

export function parsePositiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('expected a whole number of at least 1');
  return parsed;
}

/** A comma-separated list of whole numbers of at least 1 (`1000,10000,100000`). */
export function parsePositiveIntegerList(value: string): number[] {
  const parts = value.split(',').map((part) => part.trim());
  const parsed = parts.map(Number);
  if (parts.some((part) => part === '') || parsed.some((n) => !Number.isInteger(n) || n < 1))
    throw new InvalidArgumentError(
      'expected whole numbers of at least 1, separated by commas (e.g. 1000,10000)',
    );
  return parsed;
}

/** A token count: `16000`, `16k` or `16K` (thousands), the same syntax as `eval --windows`. */
export function parseTokenCount(value: string): number {
  const match = /^\s*(\d+)\s*(k?)\s*$/i.exec(value);
  const parsed = match ? Number(match[1]) * (match[2] ? 1000 : 1) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('expected a token count like 16000 or 16k');
  return parsed;
}

export function parseChoice(choices: readonly string[]): (value: string) => string {
  return (value) => {
    if (!choices.includes(value)) throw new InvalidArgumentError(`expected one of: ${choices.join(', ')}`);
    return value;
  };
}

export function parsePort(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535)
    throw new InvalidArgumentError('expected a port from 0 to 65535');
  return parsed;
}
