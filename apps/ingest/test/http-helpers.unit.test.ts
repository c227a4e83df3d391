import {
  CompactorError,
  ConcurrencyError,
  IdempotencyConflictError,
  IntegrityError,
  NotFoundError,
  UnknownModelError,
  ValidationError,
} from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorResponse, expectedVersionFromIfMatch, versionTag } from '../src/index.js';

describe('If-Match', () => {
  it('reads back every version tag it writes, quoted, bare or weak', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (version) => {
        expect(expectedVersionFromIfMatch(versionTag(version))).toBe(version);
        expect(expectedVersionFromIfMatch(String(version))).toBe(version);
        expect(expectedVersionFromIfMatch(`W/${versionTag(version)}`)).toBe(version);
      }),
    );
  });

  it('has no expectation without the header and refuses anything else', () => {
    expect(expectedVersionFromIfMatch(undefined)).toBeUndefined();
    for (const header of ['*', '"1", "2"', '-1', '"abc"', '']) {
      expect(() => expectedVersionFromIfMatch(header)).toThrow(/If-Match/);
    }
  });
});

describe('errorResponse', () => {
  it('maps core errors by code', () => {
    const cases: Array<[unknown, number, string]> = [
      [new ValidationError('bad', [{ path: 'a', message: 'b' }]), 400, 'validation'],
      [new NotFoundError('thread', 't'), 404, 'not_found'],
      [new ConcurrencyError('thread t', 1, 2), 409, 'concurrency'],
      [new IdempotencyConflictError('e'), 409, 'idempotency_conflict'],
      [new UnknownModelError('m'), 422, 'unknown_model'],
      [new CompactorError('access_denied', 'no'), 403, 'access_denied'],
      [new CompactorError('unavailable', 'down'), 503, 'unavailable'],
      [new IntegrityError('corrupt', { path: '/secret/file' }), 500, 'integrity'],
      [new Error('boom'), 500, 'internal'],
    ];
    for (const [error, status, code] of cases) {
      const response = errorResponse(error);
      expect([response.status, response.body.error.code]).toEqual([status, code]);
    }
  });

  it('keeps field issues for 400s and hides details of server faults', () => {
    const validation = errorResponse(new ValidationError('bad', [{ path: 'events.0', message: 'no' }]));
    expect(validation.body.error.issues).toEqual([{ path: 'events.0', message: 'no' }]);
    expect(validation.body.error.details).toBeUndefined();
    const integrity = errorResponse(new IntegrityError('corrupt', { path: '/secret/file' }));
    expect(JSON.stringify(integrity.body)).not.toContain('/secret/file');
    expect(integrity.serverFault).toBe(true);
    const unexpected = errorResponse(new Error('database password is hunter2'));
    expect(JSON.stringify(unexpected.body)).not.toContain('hunter2');
  });
});
