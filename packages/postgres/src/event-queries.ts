import type { SqlNames } from './sql-names.js';

/*
 * The two reads every caller makes often, kept here so tests can EXPLAIN exactly what the store
 * runs: both are range scans of the events primary key (tenant, thread, seq), reading only the
 * rows they return however long the thread is, with the thread's row in the same round trip.
 */

/**
 * $1 tenant, $2 thread, $3 first seq, $4 page size: the thread's version beside each event of the page.
 *
 * @param names - The schema's table names.
 * @returns The SQL text.
 */
export function readPageSql(names: SqlNames): string {
  return `SELECT thread.version, page.event FROM ${names.threads} AS thread
          LEFT JOIN LATERAL (
            SELECT event, seq FROM ${names.events}
             WHERE tenant_id = thread.tenant_id AND thread_id = thread.thread_id AND seq >= $3
             ORDER BY seq LIMIT $4
          ) AS page ON true
          WHERE thread.tenant_id = $1 AND thread.thread_id = $2
          ORDER BY page.seq`;
}

/**
 * $1 tenant, $2 thread, $3 count: the newest events, oldest first (a backward scan of the key).
 *
 * @param names - The schema's table names.
 * @returns The SQL text.
 */
export function readNewestSql(names: SqlNames): string {
  return `SELECT newest.event FROM ${names.threads} AS thread
          LEFT JOIN LATERAL (
            SELECT event, seq FROM ${names.events}
             WHERE tenant_id = thread.tenant_id AND thread_id = thread.thread_id
             ORDER BY seq DESC LIMIT $3
          ) AS newest ON true
          WHERE thread.tenant_id = $1 AND thread.thread_id = $2
          ORDER BY newest.seq`;
}
