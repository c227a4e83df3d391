import { noopLogger, plansFromLog } from '@compactor/core';
import { loadRenderRecords } from '@compactor/engine';
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

  it('keeps rehydration state in the lifecycle log: one runtime records, another (a second process) reads it (ADR-0191)', async () => {
    const config = (directory: string) =>
      loadRuntimeConfig({
        COMPACTOR_STORE: 'postgres',
        DATABASE_URL: url,
        COMPACTOR_POSTGRES_SCHEMA: schema,
        COMPACTOR_DATA_DIR: directory,
      });
    const [firstDirectory, secondDirectory] = await Promise.all([
      temporaryDirectory('compactor-runtime-postgres-a-'),
      temporaryDirectory('compactor-runtime-postgres-b-'),
    ]);
    const first = await createRuntime(config(firstDirectory.path), { logger: noopLogger });
    const second = await createRuntime(config(secondDirectory.path), { logger: noopLogger });
    const owner = { tenantId: 'tenant-a', threadId: 'rehydrated' };
    try {
      const records = await loadRenderRecords(first.stores.lifecycle, owner);
      expect(records.state).toEqual({ injectedAtTurn: {} });
      const report = {
        turn: 7,
        rehydration: {
          performed: [
            {
              name: 'compaction_rehydrated' as const,
              artifactId: 'art_1',
              turn: 7,
              trigger: 'message' as const,
            },
          ],
          blocked: [],
        },
        recall: {
          attempted: false,
          query: '',
          allowance: 0,
          reserveAllowance: 0,
          freeRoomTokens: 0,
          tokens: 0,
          indexed: 0,
          recalled: [],
        },
      };
      expect(await records.record(report, '2025-06-01T00:00:00.000Z')).toBe(1);
      const elsewhere = await loadRenderRecords(second.stores.lifecycle, owner);
      expect(elsewhere.state).toEqual({ injectedAtTurn: { art_1: 7 } });
      // Recording the same outcome again from the other process adds nothing.
      expect(await elsewhere.record(report, '2025-06-01T00:00:01.000Z')).toBe(0);
    } finally {
      await Promise.all([first.close(), second.close()]);
      await Promise.all([firstDirectory.remove(), secondDirectory.remove()]);
    }
  });
});
