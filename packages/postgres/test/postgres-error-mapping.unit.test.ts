import { CompactorError } from '@compactor/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isUniqueViolation, mapPostgresError, sqlNames } from '../src/index.js';

/** A server error as the driver builds it from a real ErrorResponse. */
function serverError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  return error;
}

describe('mapPostgresError', () => {
  it('recognises a unique violation by its SQLSTATE', () => {
    expect(isUniqueViolation(serverError('23505', 'duplicate key value violates unique constraint'))).toBe(
      true,
    );
    expect(isUniqueViolation(serverError('23503', 'foreign key violation'))).toBe(false);
    expect(isUniqueViolation(new Error('23505'))).toBe(false);
  });

  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['08006', 'connection failure'],
    ['53300', 'sorry, too many clients already'],
  ])('makes %s (%s) a retryable unavailable error', (code, message) => {
    const mapped = mapPostgresError(serverError(code, message), 'append');
    expect(CompactorError.hasCode(mapped, 'unavailable')).toBe(true);
    expect((mapped as CompactorError).isRetryable).toBe(true);
    expect((mapped as CompactorError).message).toContain('append');
  });

  it('makes refused and dropped connections retryable unavailable errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(CompactorError.hasCode(mapPostgresError(refused, 'read'), 'unavailable')).toBe(true);
    const dropped = new Error('Connection terminated unexpectedly');
    expect(CompactorError.hasCode(mapPostgresError(dropped, 'read'), 'unavailable')).toBe(true);
  });

  it('makes a value PostgreSQL cannot hold a validation error', () => {
    const mapped = mapPostgresError(
      serverError('54000', 'total size of jsonb array elements exceeds the maximum'),
      'append',
    );
    expect(CompactorError.hasCode(mapped, 'validation')).toBe(true);
  });

  it('passes typed errors and unknown failures through unchanged', () => {
    const typed = new CompactorError('concurrency', 'moved on');
    expect(mapPostgresError(typed, 'append')).toBe(typed);
    const syntax = serverError('42601', 'syntax error at or near "SELEC"');
    expect(mapPostgresError(syntax, 'append')).toBe(syntax);
  });
});

describe('sqlNames', () => {
  it('quotes every table under the schema and names the lifecycle channel after it', () => {
    const names = sqlNames('compactor_eu');
    expect(names.events).toBe('"compactor_eu"."events"');
    expect(names.planHeads).toBe('"compactor_eu"."plan_heads"');
    expect(names.lifecycleChannel).toBe('compactor_lifecycle_compactor_eu');
  });

  it.each(['Compactor', 'a-b', 'x"; DROP TABLE events; --', '1abc', '', 'a'.repeat(41)])(
    'refuses the schema name %j (it is spliced into SQL)',
    (schema) => {
      expect(() => sqlNames(schema)).toThrow(expect.objectContaining({ code: 'validation' }));
    },
  );
});
