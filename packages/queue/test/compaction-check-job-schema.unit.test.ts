import { CompactorError, ValidationError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { isPermanentFailure, parseCompactionCheckJob } from '../src/index.js';

function issuesOf(data: unknown): string[] {
  try {
    parseCompactionCheckJob(data);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues.map((issue) => issue.path);
  }
  throw new Error('expected a ValidationError');
}

describe('compaction-check job contract', () => {
  it('accepts ids, a version, a reason and manual options', () => {
    const job = {
      tenantId: 't',
      threadId: 'x',
      version: 0,
      reason: 'manual',
      manual: { instructions: 'keep the plan', force: true },
    };
    expect(parseCompactionCheckJob(job)).toEqual(job);
  });

  it('rejects anything that is not ids: content, unknown fields, bad versions and reasons', () => {
    expect(issuesOf({ tenantId: 't', threadId: 'x', version: 1, reason: 'append', messages: [] })).toEqual([
      '',
    ]);
    expect(issuesOf({ tenantId: '', threadId: 'x', version: 1, reason: 'append' })).toEqual(['tenantId']);
    expect(issuesOf({ tenantId: 't', threadId: 'x', version: 1.5, reason: 'append' })).toEqual(['version']);
    expect(issuesOf({ tenantId: 't', threadId: 'x', version: 1, reason: 'later' })).toEqual(['reason']);
    expect(issuesOf(null)).toEqual(['']);
    expect(issuesOf({ tenantId: 't', threadId: 'x\uD800', version: 1, reason: 'append' })).toEqual([
      'threadId',
    ]);
  });

  it('allows manual options only on manual requests', () => {
    expect(issuesOf({ tenantId: 't', threadId: 'x', version: 1, reason: 'append', manual: {} })).toEqual([
      'manual',
    ]);
  });
});

describe('failure classification', () => {
  it('treats non-retryable Compactor errors as permanent and everything else as retryable', () => {
    expect(isPermanentFailure(new ValidationError('bad'))).toBe(true);
    expect(isPermanentFailure(new CompactorError('integrity', 'broken'))).toBe(true);
    expect(isPermanentFailure(new CompactorError('unavailable', 'down', { isRetryable: true }))).toBe(false);
    expect(isPermanentFailure(new Error('socket hang up'))).toBe(false);
    expect(isPermanentFailure('a string')).toBe(false);
  });
});
