import { CompactorError, ConcurrencyError } from '@compactor/core';
import { MongoInvalidArgumentError, MongoNetworkError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { mapMongoError } from '../src/mongo-error-mapping.js';

describe('mapMongoError', () => {
  it('passes typed errors through untouched', () => {
    const typed = new ConcurrencyError('thread t', 1, 2);
    expect(mapMongoError(typed, 'append')).toBe(typed);
  });

  it('makes a lost connection a retryable unavailable error, keeping the cause', () => {
    const network = new MongoNetworkError('connection reset');
    const mapped = mapMongoError(network, 'append');
    expect(CompactorError.hasCode(mapped, 'unavailable')).toBe(true);
    expect((mapped as CompactorError).isRetryable).toBe(true);
    expect((mapped as CompactorError).cause).toBe(network);
  });

  it('explains that a standalone server cannot run transactions, and does not retry', () => {
    const standalone = new MongoServerError({
      code: 20,
      errmsg: 'Transaction numbers are only allowed on a replica set member or mongos',
    });
    const mapped = mapMongoError(standalone, 'append') as CompactorError;
    expect(mapped.code).toBe('unavailable');
    expect(mapped.isRetryable).toBe(false);
    expect(mapped.message).toMatch(/replica set/);
  });

  it('turns a document over 16 MB into a ValidationError', () => {
    const tooLarge = new MongoServerError({ code: 10334, errmsg: 'BSONObj size: 17000000 is invalid' });
    expect(CompactorError.hasCode(mapMongoError(tooLarge, 'append'), 'validation')).toBe(true);
    // What an ordered insertMany throws before sending (mongodb/lib/bulk/ordered.js).
    const driverSide = new MongoInvalidArgumentError('Document is larger than the maximum size 16777216');
    expect(CompactorError.hasCode(mapMongoError(driverSide, 'append'), 'validation')).toBe(true);
  });

  it('leaves an unrecognised error as it is', () => {
    const odd = new MongoServerError({ code: 2, errmsg: 'BadValue' });
    expect(mapMongoError(odd, 'read')).toBe(odd);
  });
});
