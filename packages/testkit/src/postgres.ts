import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';

/**
 * PostgreSQL for tests: `DATABASE_URL` when set, otherwise the project's local server. Suites
 * that need it run on a fresh schema each (dropped afterwards) and are skipped by name, saying
 * why, only when nothing answers there.
 */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** Whether PostgreSQL answers at the test URL, and why not when it does not. */
export type PostgresForTests =
  | { available: true; url: string }
  | { available: false; url: string; reason: string };

/** How to start the local server when it is installed but stopped (what `.ci/run` does). */
export const postgresStartHint =
  'start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start, or set DATABASE_URL';

const probeTimeoutMs = 2_000;
let probed: Promise<PostgresForTests> | undefined;

/**
 * Whether PostgreSQL answers at the test URL; probed once per test process, in at most ~2 s.
 *
 * @returns The URL, and the reason when nothing answers.
 */
export function postgresForTests(): Promise<PostgresForTests> {
  probed ??= probe(process.env.DATABASE_URL || DEFAULT_TEST_DATABASE_URL);
  return probed;
}

async function probe(url: string): Promise<PostgresForTests> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: probeTimeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { available: true, url };
  } catch (error) {
    return { available: false, url, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A suite against PostgreSQL, or, when none answers, a skipped suite whose name says why and how
 * to start one. Nothing is faked: a mock of the driver would prove nothing about the adapter.
 *
 * @param postgres - From {@link postgresForTests}.
 * @param suiteName - The suite's name.
 * @param body - Declares the suite's tests, given the database URL.
 */
export function describeWithPostgres(
  postgres: PostgresForTests,
  suiteName: string,
  body: (url: string) => void,
): void {
  if (!postgres.available) {
    describe.skip(`${suiteName} — SKIPPED: no PostgreSQL answers at ${postgres.url} (${postgres.reason}); ${postgresStartHint}`, () => {
      it(`${suiteName} needs PostgreSQL`, () => {});
    });
    return;
  }
  describe(suiteName, () => body(postgres.url));
}

/**
 * A schema name no other run uses (lower-case, as the stores require).
 *
 * @param purpose - Readable part of the name (lower-case letters, digits, _).
 * @returns The schema name.
 */
export function uniqueSchemaName(purpose: string): string {
  return `compactor_test_${purpose}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/**
 * Drop a test schema and everything in it.
 *
 * @param url - The database URL.
 * @param schema - The schema to drop.
 */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: probeTimeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end().catch(() => {});
  }
}
