import type { EventInput } from '@compactor/core';
import {
  threadCreatedEvent,
  uniqueId,
  userMessageEvent,
} from '@compactor/testkit/contracts/contract-helpers';
import { describeWithPostgres, postgresForTests } from '@compactor/testkit/postgres';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStores, type PostgresStores } from '../src/index.js';
import { usePostgresStores } from './support/postgres-harness.js';

/**
 * Several writers, each on its own connection pool (as separate ingest processes would be),
 * append to one thread at once, some re-sending events they already sent. Whatever the
 * interleaving: every event is stored exactly once, seqs run 1..n, and each writer's events keep
 * the order that writer sent them in.
 */
describeWithPostgres(
  await postgresForTests(),
  'PostgreSQL EventStore under concurrent writers (property)',
  (url) => {
    const stores = usePostgresStores(url, 'property');
    let second: PostgresStores | undefined;
    beforeAll(() => {
      second = createPostgresStores({ connectionString: url, schema: stores().names.schema });
    });
    afterAll(() => second?.close());

    const writerPlan = fc.array(
      fc.record({ batchSize: fc.integer({ min: 1, max: 3 }), resendPrevious: fc.boolean() }),
      { minLength: 1, maxLength: 6 },
    );

    it('stores every event once, seqs contiguous, each writer in its own order', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(writerPlan, { minLength: 2, maxLength: 4 }), async (writers) => {
          const tenantId = uniqueId('tenant');
          const threadId = uniqueId('thread');
          await stores().events.append(tenantId, threadId, [threadCreatedEvent(uniqueId('created'))]);
          const sent = writers.map(() => [] as string[]);
          await Promise.all(
            writers.map(async (steps, writer) => {
              const store = writer % 2 === 0 ? stores().events : second!.events;
              let previous: EventInput[] = [];
              for (const [step, { batchSize, resendPrevious }] of steps.entries()) {
                const batch = Array.from({ length: batchSize }, (_, index) =>
                  userMessageEvent(
                    `w${writer}-s${step}-e${index}`,
                    `writer ${writer} step ${step} event ${index}`,
                  ),
                );
                // A writer that lost an acknowledgement sends its previous batch again with the new one.
                const events = resendPrevious ? [...previous, ...batch] : batch;
                const result = await store.append(tenantId, threadId, events);
                expect(result.duplicates).toBe(resendPrevious ? previous.length : 0);
                sent[writer]!.push(...batch.map((event) => event.eventId));
                previous = batch;
              }
            }),
          );
          const stored = await stores().events.readAll(tenantId, threadId);
          expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
          const ids = stored.slice(1).map((event) => event.eventId);
          expect(new Set(ids).size).toBe(ids.length);
          expect([...ids].sort()).toEqual(sent.flat().sort());
          for (const own of sent) expect(ids.filter((id) => own.includes(id))).toEqual(own);
        }),
        { numRuns: 25 },
      );
    }, 120_000);
  },
);
