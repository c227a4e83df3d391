/**
 * `compactor serve` on PostgreSQL: the simplest production-like set-up, one process with
 * COMPACTOR_STORE=postgres. Events, plans and lifecycle events land in the schema it migrated.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCompactorClient } from '@compactor/client';
import { isConversationEvent } from '@compactor/core';
import { createPostgresStores } from '@compactor/postgres';
import {
  describeWithPostgres,
  dropSchema,
  postgresForTests,
  uniqueSchemaName,
} from '@compactor/testkit/postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ServeProcess, startServe } from './serve-process.js';

const KEY = 'key-serve-postgres';

describeWithPostgres(
  await postgresForTests(),
  'compactor serve with COMPACTOR_STORE=postgres',
  (databaseUrl) => {
    const schema = uniqueSchemaName('serve');
    let serve: ServeProcess | undefined;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'compactor-serve-postgres-'));
      serve = await startServe(['--port', '0', '--data-dir', dataDir], {
        COMPACTOR_STORE: 'postgres',
        DATABASE_URL: databaseUrl,
        COMPACTOR_POSTGRES_SCHEMA: schema,
        COMPACTOR_API_KEYS: `${KEY}=tenant-serve`,
        COMPACTOR_DEBOUNCE_MS: '50',
      });
    });

    afterAll(async () => {
      if (serve) expect(await serve.stop(), serve.output()).toBe(0);
      await dropSchema(databaseUrl, schema);
      await rm(dataDir, { recursive: true, force: true });
    });

    it('says where it keeps the log, stores what it is sent in PostgreSQL, and compacts it there', async () => {
      expect(serve!.output()).toContain(`store: PostgreSQL (schema ${schema})`);
      const client = createCompactorClient({ baseUrl: serve!.url, apiKey: KEY });
      const { threadId } = await client.createThread({
        threadId: 'serve-pg',
        model: 'claude-sonnet-4-5',
        contextWindow: 1_600,
      });
      const text = 'check the logs, restart the service and watch the queue depth. '.repeat(20);
      for (let index = 0; index < 12; index += 1) {
        await client.appendEvents(threadId, [
          {
            eventId: `e${index}`,
            type: 'message.appended',
            message: {
              id: `m${index}`,
              role: index % 2 === 0 ? 'user' : 'assistant',
              content: [{ type: 'text', text: `${index}: ${text}` }],
            },
          },
        ]);
      }
      await expect
        .poll(async () => (await client.getPlan(threadId)).current.version, { timeout: 30_000 })
        .toBeGreaterThan(0);
      const stores = createPostgresStores({ connectionString: databaseUrl, schema });
      try {
        const stored = await stores.events.readAll('tenant-serve', threadId);
        // 13 sent; each committed plan version is logged too (ADR-0190).
        expect(stored.filter((event) => isConversationEvent(event.type)).length).toBe(13);
        expect(stored.some((event) => event.type === 'plan.committed')).toBe(true);
        expect((await stores.plans.getCurrent('tenant-serve', threadId)).version).toBeGreaterThan(0);
        expect((await stores.lifecycle.list('tenant-serve', threadId)).length).toBeGreaterThan(0);
      } finally {
        await stores.close();
      }
    });
  },
);
