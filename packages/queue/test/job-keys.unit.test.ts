import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactionCheckJobSchema, deduplicationKey, threadKey } from '../src/index.js';
import { newJobId } from '../src/job-keys.js';

describe('queue keys', () => {
  it('never contain ":", "{" or "}", whatever ids the job contract accepts', () => {
    const anyId = fc.string({ minLength: 1, unit: 'binary' });
    fc.assert(
      fc.property(anyId, anyId, (tenantId, threadId) => {
        const job = { tenantId, threadId, version: 1, reason: 'append' as const };
        fc.pre(compactionCheckJobSchema.safeParse(job).success);
        for (const key of [threadKey(tenantId, threadId), deduplicationKey(job)!, newJobId(job)]) {
          expect(key).not.toMatch(/[:{}]/);
        }
      }),
    );
  });

  it('are injective: distinct (tenant, thread) pairs never share a key', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })),
        fc.tuple(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })),
        ([tenantA, threadA], [tenantB, threadB]) => {
          fc.pre(tenantA !== tenantB || threadA !== threadB);
          expect(threadKey(tenantA, threadA)).not.toBe(threadKey(tenantB, threadB));
        },
      ),
    );
    expect(threadKey('a/b', 'c')).not.toBe(threadKey('a', 'b/c'));
  });

  it('share one deduplication key for automatic checks of a thread, none for manual requests', () => {
    const base = { tenantId: 't', threadId: 'x', version: 1 };
    expect(deduplicationKey({ ...base, reason: 'append' })).toBe(
      deduplicationKey({ ...base, reason: 'sweeper' }),
    );
    expect(deduplicationKey({ ...base, reason: 'manual' })).toBeUndefined();
    expect(newJobId({ ...base, reason: 'append' })).not.toBe(newJobId({ ...base, reason: 'append' }));
  });
});
