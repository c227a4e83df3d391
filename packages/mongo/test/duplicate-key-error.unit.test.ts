import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { duplicateKeyInfo, isDuplicateOn } from '../src/duplicate-key-error.js';

const seqMessage =
  'E11000 duplicate key error collection: db.events index: tenantId_1_threadId_1_seq_1 dup key: { tenantId: "t:1", threadId: "a_b", seq: 3 }';
const eventIdMessage =
  'E11000 duplicate key error collection: db.events index: tenantId_1_threadId_1_eventId_1 dup key: { tenantId: "t", threadId: "x", eventId: "e" }';

/** The raw server document the driver keeps on each write error of a bulk write (`WriteError.err`). */
function rawWriteError(errmsg: string, extra: Record<string, unknown> = {}) {
  return { index: 0, code: 11000, errmsg, errInfo: {}, op: {}, ...extra };
}

describe('duplicateKeyInfo', () => {
  it('reads the clashing fields from a MongoServerError keyPattern', () => {
    const error = new MongoServerError({
      code: 11000,
      errmsg: seqMessage,
      keyPattern: { tenantId: 1, threadId: 1, seq: 1 },
      keyValue: { tenantId: 't:1', threadId: 'a_b', seq: 3 },
    });
    const info = duplicateKeyInfo(error);
    expect(info?.fields).toEqual(['tenantId', 'threadId', 'seq']);
    expect(info?.keyValue).toEqual({ tenantId: 't:1', threadId: 'a_b', seq: 3 });
    expect(info && isDuplicateOn(info, 'seq')).toBe(true);
    expect(info && isDuplicateOn(info, 'eventId')).toBe(false);
  });

  it('reads a bulk write error through its write errors (insertMany)', () => {
    const writeError = {
      err: rawWriteError(eventIdMessage, { keyPattern: { tenantId: 1, threadId: 1, eventId: 1 } }),
    };
    const error = new MongoBulkWriteError(
      { message: eventIdMessage, code: 11000, writeErrors: [writeError as never] },
      {} as never,
    );
    expect(duplicateKeyInfo(error)?.fields).toEqual(['tenantId', 'threadId', 'eventId']);
  });

  it('accepts a single write error where the driver allows one or many', () => {
    const error = { code: 11000, message: 'bulk', writeErrors: rawWriteError(eventIdMessage) };
    expect(duplicateKeyInfo(error)?.fields).toEqual(['tenantId', 'threadId', 'eventId']);
  });

  it('falls back to the default index name in the message, whatever the key values contain', () => {
    const error = new MongoServerError({ code: 11000, errmsg: seqMessage });
    expect(duplicateKeyInfo(error)?.fields).toEqual(['tenantId', 'threadId', 'seq']);
    const dotted = {
      code: 11000,
      errmsg:
        'E11000 duplicate key error collection: db.events index: tenantId_1_threadId_1_message.id_1 dup key: { }',
    };
    expect(duplicateKeyInfo(dotted)?.fields).toEqual(['tenantId', 'threadId', 'message.id']);
  });

  it('still recognises an E11000 it cannot attribute to fields', () => {
    expect(duplicateKeyInfo({ code: 11000, message: 'duplicate' })).toEqual({
      fields: [],
      keyValue: undefined,
    });
  });

  it('ignores everything that is not a duplicate key', () => {
    expect(duplicateKeyInfo(new MongoServerError({ code: 112, errmsg: 'WriteConflict' }))).toBeNull();
    expect(duplicateKeyInfo(new Error('E11000 lookalike without a code'))).toBeNull();
    expect(duplicateKeyInfo(null)).toBeNull();
    expect(duplicateKeyInfo('E11000')).toBeNull();
    expect(duplicateKeyInfo({ code: 11001 })).toBeNull();
    expect(duplicateKeyInfo({ code: 2, writeErrors: [{ code: 121, errmsg: 'validation' }] })).toBeNull();
  });
});
