import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodePathSegment } from '../src/index.js';

describe('encodePathSegment', () => {
  it('keeps lowercase letters, digits, - and _ as they are', () => {
    expect(encodePathSegment('thread-01_b', 'threadId')).toBe('thread-01_b');
  });

  it('escapes everything else, including uppercase, dots, slashes and ~', () => {
    expect(encodePathSegment('A./~', 'threadId')).toBe('~41~2e~2f~7e');
  });

  it('rejects an empty id', () => {
    expect(() => encodePathSegment('', 'tenantId')).toThrow(/tenantId/);
  });

  it('always gives one safe, short file name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }), (id) => {
        const segment = encodePathSegment(id, 'threadId');
        expect(segment).toMatch(/^[a-z0-9_~-]+$/);
        expect(segment.length).toBeLessThanOrEqual(120);
        expect(segment).not.toBe('.');
        expect(segment).not.toBe('..');
      }),
    );
  });

  it('never maps two ids to one name', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 150 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 150 }),
        (left, right) => {
          fc.pre(left !== right);
          expect(encodePathSegment(left, 'id')).not.toBe(encodePathSegment(right, 'id'));
        },
      ),
    );
  });
});
