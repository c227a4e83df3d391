import {
  type Clock,
  type CommitResult,
  type CompactionPlan,
  type CurrentPlan,
  compactionPlanSchema,
  NotFoundError,
  type PlanStore,
  type PlanVersionSummary,
  planAsStored,
  requireIds,
  ValidationError,
} from '@compactor/core';
import type { Pool } from 'pg';
import { isUniqueViolation, mapPostgresError } from './postgres-error-mapping.js';
import type { SqlNames } from './sql-names.js';

/** What a PostgreSQL plan store needs. */
export interface PostgresPlanStoreOptions {
  pool: Pool;
  names: SqlNames;
  clock: Clock;
}

/**
 * Plans in PostgreSQL: one row per (tenant, thread, version), every version kept, and a
 * `plan_heads` row per thread holding the current version. A commit is one statement: move the
 * head from the expected version (an UPDATE whose WHERE PostgreSQL re-checks after waiting on a
 * racing committer's lock), or create it when the expected version is 0 (an INSERT that does
 * nothing on conflict), and insert the plan only if the head moved. So of N racing committers
 * with one expected version exactly one moves the head; the others see no row and report
 * `committed: false` with the version that won.
 */
export class PostgresPlanStore implements PlanStore {
  /** @param options - Pool, table names and clock. */
  constructor(private readonly options: PostgresPlanStoreOptions) {}

  async getCurrent(tenantId: string, threadId: string): Promise<CurrentPlan> {
    requireIds({ tenantId, threadId });
    const { names, pool } = this.options;
    try {
      const result = await pool.query<{ version: number; plan: CompactionPlan | null }>(
        `SELECT head.version, plan.plan FROM ${names.planHeads} AS head
          LEFT JOIN ${names.plans} AS plan
            ON plan.tenant_id = head.tenant_id AND plan.thread_id = head.thread_id AND plan.version = head.version
          WHERE head.tenant_id = $1 AND head.thread_id = $2`,
        [tenantId, threadId],
      );
      const row = result.rows[0];
      return row === undefined
        ? { plan: null, version: 0 }
        : { plan: row.plan && planAsStored(row.plan), version: row.version };
    } catch (error) {
      throw mapPostgresError(error, 'getCurrent');
    }
  }

  commit(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
  ): Promise<CommitResult> {
    return this.commitVersion(tenantId, threadId, plan, expectedVersion, null);
  }

  async getVersion(tenantId: string, threadId: string, version: number): Promise<CompactionPlan | null> {
    requireIds({ tenantId, threadId });
    try {
      const result = await this.options.pool.query<{ plan: CompactionPlan }>(
        `SELECT plan FROM ${this.options.names.plans} WHERE tenant_id = $1 AND thread_id = $2 AND version = $3`,
        [tenantId, threadId, version],
      );
      const plan = result.rows[0]?.plan;
      return plan ? planAsStored(plan) : null;
    } catch (error) {
      throw mapPostgresError(error, 'getVersion');
    }
  }

  async listVersions(tenantId: string, threadId: string): Promise<PlanVersionSummary[]> {
    requireIds({ tenantId, threadId });
    try {
      const result = await this.options.pool.query<{
        version: number;
        based_on_seq: number;
        created_at: string;
        reverted_from: number | null;
      }>(
        `SELECT version, based_on_seq, created_at, reverted_from FROM ${this.options.names.plans}
          WHERE tenant_id = $1 AND thread_id = $2 ORDER BY version`,
        [tenantId, threadId],
      );
      return result.rows.map((row) => ({
        version: row.version,
        basedOnSeq: row.based_on_seq,
        createdAt: row.created_at,
        revertedFrom: row.reverted_from ?? undefined,
      }));
    } catch (error) {
      throw mapPostgresError(error, 'listVersions');
    }
  }

  async revertTo(
    tenantId: string,
    threadId: string,
    version: number,
    expectedVersion: number,
  ): Promise<CommitResult> {
    const earlier = await this.getVersion(tenantId, threadId, version);
    if (earlier === null) throw new NotFoundError('plan version', `${threadId}@${version}`);
    return this.commitVersion(tenantId, threadId, earlier, expectedVersion, version);
  }

  private async commitVersion(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
    revertedFrom: number | null,
  ): Promise<CommitResult> {
    requireIds({ tenantId, threadId });
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
      throw new ValidationError('invalid expectedVersion', [
        { path: 'expectedVersion', message: 'must be an integer ≥ 0' },
      ]);
    }
    const parsed = compactionPlanSchema.safeParse(plan);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        path: ['plan', ...issue.path.map(String)].join('.'),
        message: issue.message,
      }));
      throw new ValidationError('invalid plan', issues);
    }
    if (parsed.data.threadId !== threadId) {
      throw new ValidationError('the plan is for another thread', [
        { path: 'plan.threadId', message: `expected ${threadId}, got ${parsed.data.threadId}` },
      ]);
    }
    const version = expectedVersion + 1;
    const { names, pool } = this.options;
    try {
      const result = await pool.query<{ version: number }>(
        `WITH moved AS (
           UPDATE ${names.planHeads} SET version = $3 + 1, updated_at = now()
            WHERE tenant_id = $1 AND thread_id = $2 AND version = $3 AND $3 > 0
           RETURNING version
         ), created AS (
           INSERT INTO ${names.planHeads} (tenant_id, thread_id, version, updated_at)
           SELECT $1, $2, 1, now() WHERE $3 = 0
           ON CONFLICT (tenant_id, thread_id) DO NOTHING
           RETURNING version
         ), head AS (
           SELECT version FROM moved UNION ALL SELECT version FROM created
         )
         INSERT INTO ${names.plans} (tenant_id, thread_id, version, based_on_seq, created_at, reverted_from, plan)
         SELECT $1, $2, head.version, $4, $5, $6, $7::json FROM head
         RETURNING version`,
        [
          tenantId,
          threadId,
          expectedVersion,
          parsed.data.basedOnSeq,
          // When this version was committed (a revert keeps the copied plan's own createdAt).
          this.options.clock.now().toISOString(),
          revertedFrom,
          JSON.stringify({ ...parsed.data, version }),
        ],
      );
      if (result.rows.length === 1) return { committed: true, version };
    } catch (error) {
      // A plan row left behind by a head that was moved back would collide here; it is still a lost race.
      if (!isUniqueViolation(error)) throw mapPostgresError(error, 'commit');
    }
    return { committed: false, currentVersion: (await this.getCurrent(tenantId, threadId)).version };
  }
}
