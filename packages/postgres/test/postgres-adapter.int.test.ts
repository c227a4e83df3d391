import { CompactorError, type EventInput, type LifecycleEvent } from '@compactor/core';
import {
  threadCreatedEvent,
  uniqueId,
  userMessageEvent,
} from '@compactor/testkit/contracts/contract-helpers';
import {
  describeWithPostgres,
  dropSchema,
  postgresForTests,
  uniqueSchemaName,
} from '@compactor/testkit/postgres';
import { expect, it } from 'vitest';
import { createPostgresStores, MIGRATIONS, readNewestSql, readPageSql } from '../src/index.js';
import { usePostgresStores } from './support/postgres-harness.js';

const postgres = await postgresForTests();

describeWithPostgres(postgres, 'PostgreSQL adapter specifics', (url) => {
  const stores = usePostgresStores(url, 'adapter');

  it('applies the shipped migrations once, even when five processes start together', async () => {
    const schema = uniqueSchemaName('migrate');
    const starters = Array.from({ length: 5 }, () => createPostgresStores({ connectionString: url, schema }));
    try {
      const outcomes = await Promise.all(starters.map((store) => store.migrate()));
      const known = MIGRATIONS.map((migration) => migration.version);
      expect(outcomes.flatMap((outcome) => outcome.applied).sort()).toEqual(known);
      expect(outcomes.every((outcome) => outcome.version === Math.max(...known))).toBe(true);
      expect((await starters[0]!.migrate()).applied).toEqual([]);
      const recorded = await starters[0]!.pool.query(`SELECT version FROM ${starters[0]!.names.migrations}`);
      expect(recorded.rows.map((row) => row.version)).toEqual(known);
    } finally {
      await Promise.all(starters.map((store) => store.close()));
      await dropSchema(url, schema);
    }
  });

  it('refuses a schema newer than this release instead of using it', async () => {
    const schema = uniqueSchemaName('newer');
    const store = createPostgresStores({ connectionString: url, schema });
    try {
      await store.migrate();
      await store.pool.query(`INSERT INTO ${store.names.migrations} (version, name) VALUES (9999, 'future')`);
      const refused = await store.migrate().catch((error: unknown) => error);
      expect(CompactorError.hasCode(refused, 'unavailable')).toBe(true);
      expect(String((refused as Error).message)).toMatch(/newer than this release/);
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  });

  it('turns racing creators of one thread into one winner and typed errors, never a raw unique violation', async () => {
    const tenantId = uniqueId('tenant');
    const threadId = uniqueId('thread');
    const settled = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        stores().events.append(tenantId, threadId, [threadCreatedEvent(`c-${index}`)]),
      ),
    );
    expect(settled.filter((outcome) => outcome.status === 'fulfilled').length).toBe(1);
    for (const outcome of settled) {
      if (outcome.status === 'rejected') {
        expect(CompactorError.isInstance(outcome.reason), String(outcome.reason)).toBe(true);
        expect(['validation', 'concurrency']).toContain((outcome.reason as CompactorError).code);
      }
    }
    expect((await stores().events.readAll(tenantId, threadId)).length).toBe(1);
  });

  it('reads "since seq N" and "newest K" by the primary key, never scanning the log', async () => {
    const tenantId = uniqueId('tenant');
    const threadIds = [uniqueId('thread'), uniqueId('thread')];
    for (const threadId of threadIds) {
      await stores().events.append(tenantId, threadId, [threadCreatedEvent(uniqueId('c'))]);
      for (let start = 0; start < 3000; start += 1000) {
        const batch: EventInput[] = Array.from({ length: 1000 }, (_, offset) =>
          userMessageEvent(`${threadId}-${start + offset}`, `message ${start + offset}`),
        );
        await stores().events.append(tenantId, threadId, batch);
      }
    }
    const threadId = threadIds[0]!;
    const newest = await stores().events.readNewest(tenantId, threadId, 5);
    expect(newest.map((event) => event.seq)).toEqual([2997, 2998, 2999, 3000, 3001]);
    const since = await stores().events.read(tenantId, threadId, { fromSeq: 2990, limit: 5 });
    expect(since.events.map((event) => event.seq)).toEqual([2990, 2991, 2992, 2993, 2994]);

    const { pool, names } = stores();
    await pool.query(`ANALYZE ${names.events}`);
    await pool.query(`ANALYZE ${names.threads}`);
    const plans = [
      await explain(pool, readPageSql(names), [tenantId, threadId, 2990, 5]),
      await explain(pool, readNewestSql(names), [tenantId, threadId, 5]),
    ];
    for (const plan of plans) {
      expect(plan).not.toMatch(/Seq Scan on events/);
      expect(plan).toMatch(/Index (Only )?Scan.*events_pkey/);
    }
  }, 60_000);

  it('notifies other connections of each lifecycle event (LISTEN/NOTIFY), filtered by tenant', async () => {
    const listener = createPostgresStores({ connectionString: url, schema: stores().names.schema });
    const received: LifecycleEvent[] = [];
    const everything: LifecycleEvent[] = [];
    const tenantId = uniqueId('tenant');
    const tenantOnly = await listener.subscribeToLifecycle((event) => received.push(event), { tenantId });
    const all = await listener.subscribeToLifecycle((event) => everything.push(event));
    try {
      const event = (index: number, tenant = tenantId): LifecycleEvent => ({
        tenantId: tenant,
        threadId: 'thread-live',
        name: 'compaction_completed',
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
        tokensFreed: index,
        spanMessageIds: Array.from({ length: 2_000 }, (_, id) => `a-long-message-id-${id}`),
      });
      await stores().lifecycle.append(event(1));
      await stores().lifecycle.append(event(2, uniqueId('other-tenant')));
      await stores().lifecycle.append(event(3));
      await waitFor(() => received.length >= 2 && everything.length >= 3);
      expect(received.map((seen) => seen.tokensFreed)).toEqual([1, 3]);
      expect(received[0]).toEqual(event(1));
      expect(everything.map((seen) => seen.tokensFreed)).toEqual([1, 2, 3]);
    } finally {
      await tenantOnly.close();
      await all.close();
      await listener.close();
    }
  });

  it('reports an unreachable server as a retryable unavailable error', async () => {
    const unreachable = createPostgresStores({
      connectionString: 'postgres://postgres@127.0.0.1:1/test',
      connectionTimeoutMs: 1_000,
    });
    try {
      const failed = await unreachable.events.getThread('tenant', 'thread').catch((error: unknown) => error);
      expect(CompactorError.hasCode(failed, 'unavailable')).toBe(true);
      expect((failed as CompactorError).isRetryable).toBe(true);
    } finally {
      await unreachable.close();
    }
  });
});

async function explain(
  pool: { query(sql: string, values: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> },
  sql: string,
  values: unknown[],
): Promise<string> {
  const result = await pool.query(`EXPLAIN ${sql}`, values);
  return result.rows.map((row) => String(row['QUERY PLAN'])).join('\n');
}

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for notifications');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
