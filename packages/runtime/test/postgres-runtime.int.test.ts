import { noopLogger, plansFromLog } from '@compactor/core';
import {
  describeWithPostgres,
  dropSchema,
  postgresForTests,
  uniqueSchemaName,
} from '@compactor/testkit/postgres';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { createRuntime, loadRuntimeConfig } from '../src/index.js';
import { temporaryDirectory } from './support/temporary-directory.js';

describeWithPostgres(await postgresForTests(), 'createRuntime with PostgreSQL', (url) => {
  const schema = uniqueSchemaName('runtime');
  afterAll(() => dropSchema(url, schema));

  it('migrates, stores events and plans in PostgreSQL, compacts, and reports ready', async () => {
    const directory = await temporaryDirectory('compactor-runtime-postgres-');
    const config = loadRuntimeConfig({
      COMPACTOR_STORE: 'postgres',
      DATABASE_URL: url,
      COMPACTOR_POSTGRES_SCHEMA: schema,
      COMPACTOR_DATA_DIR: directory.path,
    });
    const runtime = await createRuntime(config, { logger: noopLogger });
    try {
      const { events } = codingSession('thread-postgres');
      await runtime.stores.events.append('tenant-a', 'thread-postgres', asInputs(events));
      const result = await runtime.engine.check('tenant-a', 'thread-postgres');
      expect(result.commit).toEqual({ status: 'committed', version: 1 });
      // The log in PostgreSQL alone rebuilds the committed plan.
      const log = await runtime.stores.events.readAll('tenant-a', 'thread-postgres');
      expect(plansFromLog(log).get(1)).toEqual(
        await runtime.stores.plans.getVersion('tenant-a', 'thread-postgres', 1),
      );
      expect(await runtime.ready()).toEqual({
        ok: true,
        checks: { store: 'ok', artifacts: 'ok', queue: 'ok' },
      });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const stored = await client.query(`SELECT count(*)::int AS n FROM "${schema}".events`);
        // The conversation and the won commit's plan.committed event (ADR-0190).
        expect(stored.rows[0].n).toBe(events.length + 1);
        const plans = await client.query(`SELECT version FROM "${schema}".plans`);
        expect(plans.rows).toEqual([{ version: 1 }]);
        const lifecycle = await client.query(`SELECT count(*)::int AS n FROM "${schema}".lifecycle_events`);
        expect(lifecycle.rows[0].n).toBeGreaterThan(0);
      } finally {
        await client.end();
      }
    } finally {
      await runtime.close();
      await directory.remove();
    }
  });
});
