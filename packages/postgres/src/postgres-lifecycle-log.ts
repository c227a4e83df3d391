import {
  type LifecycleEvent,
  type LifecycleEventLog,
  lifecycleEventSchema,
  requireIds,
  ValidationError,
} from '@compactor/core';
import type { Pool } from 'pg';
import { mapPostgresError } from './postgres-error-mapping.js';
import type { SqlNames } from './sql-names.js';

/**
 * Lifecycle events, one row each, numbered by a sequence so they list in append order across
 * processes. Each append also sends a `NOTIFY` carrying the row's id (delivered when it commits;
 * the id, not the event, because a notification holds at most 8,000 bytes), so any process can
 * follow what compaction does elsewhere through `subscribeToLifecycleEvents`.
 */
export class PostgresLifecycleEventLog implements LifecycleEventLog {
  /**
   * @param pool - The connection pool.
   * @param names - The schema's table names.
   */
  constructor(
    private readonly pool: Pool,
    private readonly names: SqlNames,
  ) {}

  async append(event: LifecycleEvent): Promise<void> {
    const parsed = lifecycleEventSchema.safeParse(event);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      }));
      throw new ValidationError('invalid lifecycle event', issues);
    }
    try {
      await this.pool.query(
        `WITH inserted AS (
           INSERT INTO ${this.names.lifecycleEvents} (tenant_id, thread_id, event) VALUES ($1, $2, $3::json)
           RETURNING id
         )
         SELECT pg_notify($4, inserted.id::text) FROM inserted`,
        [
          parsed.data.tenantId,
          parsed.data.threadId,
          JSON.stringify(parsed.data),
          this.names.lifecycleChannel,
        ],
      );
    } catch (error) {
      throw mapPostgresError(error, 'lifecycle append');
    }
  }

  async list(
    tenantId: string,
    threadId: string,
    options: { limit?: number } = {},
  ): Promise<LifecycleEvent[]> {
    requireIds({ tenantId, threadId });
    try {
      // With a limit: the most recent `limit` events by a backward index scan, returned in append order.
      const result = await this.pool.query<{ event: LifecycleEvent }>(
        `SELECT event FROM (
           SELECT id, event FROM ${this.names.lifecycleEvents}
            WHERE tenant_id = $1 AND thread_id = $2
            ORDER BY id DESC LIMIT $3
         ) AS newest ORDER BY id`,
        [tenantId, threadId, options.limit === undefined ? null : Math.max(1, options.limit)],
      );
      return result.rows.map((row) => row.event);
    } catch (error) {
      throw mapPostgresError(error, 'lifecycle list');
    }
  }

  /**
   * The event stored under `id` (what a notification names).
   *
   * @param id - The row id a notification carries.
   * @returns The event, or null when it is gone.
   */
  async getById(id: string): Promise<LifecycleEvent | null> {
    const result = await this.pool.query<{ event: LifecycleEvent }>(
      `SELECT event FROM ${this.names.lifecycleEvents} WHERE id = $1`,
      [id],
    );
    return result.rows[0]?.event ?? null;
  }
}
