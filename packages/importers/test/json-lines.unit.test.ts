import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonLines } from '../src/shared/json-lines.js';
import { splitConcatenatedJson } from '../src/shared/split-concatenated-json.js';
import { toIsoTimestamp } from '../src/shared/timestamps.js';

describe('splitConcatenatedJson', () => {
  it('splits records glued together, whatever their strings hold', () => {
    const records = fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(records, (values) => {
        const glued = values.map((value) => JSON.stringify(value)).join('');
        const pieces = splitConcatenatedJson(glued);
        expect(pieces?.map((piece) => JSON.parse(piece))).toEqual(JSON.parse(JSON.stringify(values)));
      }),
    );
  });

  it('does not split on braces inside strings and rejects text that is not a sequence', () => {
    expect(splitConcatenatedJson('{"a":"}{"}')).toEqual(['{"a":"}{"}']);
    expect(splitConcatenatedJson('{"a":1} junk {"b":2}')).toBeUndefined();
    expect(splitConcatenatedJson('{"a":1')).toBeUndefined();
  });
});

describe('parseJsonLines', () => {
  it('skips comments and blank lines, splits glued lines and reports broken ones', () => {
    const text = '// a comment\n{"n":1}\n\n{"n":2}{"n":3}\n{"n":4\nnot json\n{"n":5}\r\n';
    const parsed = parseJsonLines(text);
    expect(parsed.records).toEqual([
      { value: { n: 1 }, line: 2 },
      { value: { n: 2 }, line: 4 },
      { value: { n: 3 }, line: 4 },
      { value: { n: 5 }, line: 7 },
    ]);
    expect(parsed).toMatchObject({ commentLines: 1, gluedLines: [4], unparseableLines: [5, 6] });
  });
});

describe('toIsoTimestamp', () => {
  it('keeps ISO strings, converts epochs and rejects what is not a time', () => {
    expect(toIsoTimestamp('2025-01-01T10:00:00.123Z')).toBe('2025-01-01T10:00:00.123Z');
    expect(toIsoTimestamp('2025-01-01T10:00:00+02:00')).toBe('2025-01-01T10:00:00+02:00');
    expect(toIsoTimestamp(1735725600000)).toBe('2025-01-01T10:00:00.000Z');
    expect(toIsoTimestamp(1735725600)).toBe('2025-01-01T10:00:00.000Z');
    expect(toIsoTimestamp('2025-01-01 10:00:00Z')).toBe('2025-01-01T10:00:00.000Z');
    expect(toIsoTimestamp('yesterday')).toBeUndefined();
    expect(toIsoTimestamp(undefined)).toBeUndefined();
  });
});
