import { describe, expect, it } from 'vitest';
import {
  CompactorError,
  ConcurrencyError,
  eventInputSchema,
  fieldIssuesFrom,
  IdempotencyConflictError,
  IntegrityError,
  NotFoundError,
  UnknownModelError,
  ValidationError,
} from '../src/index.js';

describe('typed errors', () => {
  it('carry their code, message and details', () => {
    const validation = new ValidationError('bad input', [{ path: 'seq', message: 'must be positive' }]);
    expect(validation).toBeInstanceOf(Error);
    expect(validation.code).toBe('validation');
    expect(validation.name).toBe('ValidationError');
    expect(validation.issues).toEqual([{ path: 'seq', message: 'must be positive' }]);
    expect(validation.details).toEqual({ issues: [{ path: 'seq', message: 'must be positive' }] });
    expect(validation.isRetryable).toBe(false);

    const concurrency = new ConcurrencyError('plan t1', 3, 4);
    expect(concurrency.code).toBe('concurrency');
    expect(concurrency.message).toBe('plan t1: expected version 3 but found 4');
    expect([concurrency.expectedVersion, concurrency.actualVersion]).toEqual([3, 4]);

    expect(new NotFoundError('thread', 't9').message).toBe('thread t9 was not found');
    expect(new IdempotencyConflictError('e1').details).toEqual({ eventId: 'e1' });
    expect(new IntegrityError('hash mismatch', { artifactId: 'a1' }).code).toBe('integrity');
    expect(new UnknownModelError('gpt-9').code).toBe('unknown_model');
  });

  it('are recognised by their marker, also from another copy of the module', () => {
    expect(CompactorError.isInstance(new NotFoundError('plan', 'p1'))).toBe(true);
    expect(CompactorError.hasCode(new NotFoundError('plan', 'p1'), 'not_found')).toBe(true);
    expect(CompactorError.hasCode(new NotFoundError('plan', 'p1'), 'validation')).toBe(false);
    expect(CompactorError.isInstance(new Error('plain'))).toBe(false);
    expect(CompactorError.isInstance(null)).toBe(false);
    expect(CompactorError.isInstance('validation')).toBe(false);
    // A second copy of core defines its own class but the same registered symbol.
    const fromOtherCopy = Object.assign(new Error('x'), {
      [Symbol.for('compactor.error')]: true,
      code: 'validation',
    });
    expect(CompactorError.hasCode(fromOtherCopy, 'validation')).toBe(true);
  });

  it('keep a cause and a retry hint when given', () => {
    const cause = new Error('socket closed');
    const error = new CompactorError('unavailable', 'store down', {
      cause,
      isRetryable: true,
      details: { host: 'db' },
    });
    expect(error.cause).toBe(cause);
    expect(error.isRetryable).toBe(true);
    expect(error.details).toEqual({ host: 'db' });
    expect('cause' in new CompactorError('summarizer', 'no cause')).toBe(false);
  });
});

describe('fieldIssuesFrom', () => {
  it('joins zod issue paths with dots, under an optional prefix', () => {
    const result = eventInputSchema.safeParse({
      eventId: '',
      type: 'message.appended',
      message: { id: 'm', role: 'x', content: [] },
    });
    expect(result.success).toBe(false);
    const issues = fieldIssuesFrom(result.error?.issues ?? [], 3);
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      '3.eventId',
      '3.message.content',
      '3.message.role',
    ]);
    expect(issues.every((issue) => issue.message.length > 0)).toBe(true);
  });

  it('names the root with the prefix alone, or an empty path without one', () => {
    const issues = [{ path: [], message: 'expected an object' }];
    expect(fieldIssuesFrom(issues, 'query')).toEqual([{ path: 'query', message: 'expected an object' }]);
    expect(fieldIssuesFrom(issues)).toEqual([{ path: '', message: 'expected an object' }]);
  });
});
