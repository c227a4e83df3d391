import { CompactorError } from '@compactor/core';
import type { Pool } from 'pg';
import type { SqlNames } from '../sql-names.js';
import { inTransaction } from '../transactions.js';
import type { Migration } from './migration.js';

/** What a migration run did. */
export interface MigrationOutcome {
  /** Versions applied by this call (empty when the schema was already current). */
  applied: number[];
  /** The schema's version afterwards. */
  version: number;
}

/**
 * Bring the schema up to date: create it if needed, then apply every migration not yet recorded
 * in `schema_migrations`, all in one transaction (PostgreSQL's DDL is transactional, so a failed
 * migration leaves nothing half-done). An advisory lock serializes processes starting together
 * (two ingests and three workers on one fresh database); the later ones find nothing to do.
 * A schema newer than this code is refused rather than used.
 */
export async function migrate(
  pool: Pool,
  names: SqlNames,
  migrations: readonly Migration[],
): Promise<MigrationOutcome> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `compactor-migrations:${names.schema}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${names.quotedSchema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${names.migrations} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const recorded = await client.query<{ version: number }>(`SELECT version FROM ${names.migrations}`);
    const done = new Set(recorded.rows.map((row) => row.version));
    const known = Math.max(0, ...migrations.map((migration) => migration.version));
    const newest = Math.max(0, ...done);
    if (newest > known) {
      throw new CompactorError(
        'unavailable',
        `PostgreSQL schema ${names.schema} is at version ${newest}, newer than this release knows (${known}); upgrade Compactor`,
        { isRetryable: false },
      );
    }
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements(names)) await client.query(statement);
      await client.query(`INSERT INTO ${names.migrations} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return { applied, version: Math.max(newest, ...applied) };
  });
}
