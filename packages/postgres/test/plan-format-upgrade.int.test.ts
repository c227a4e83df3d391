import { normalizePlan } from '@compactor/core';
import { describeWithPostgres, postgresForTests } from '@compactor/testkit/postgres';
import { clearOnePlan } from '@compactor/testkit/stored-plans';
import { expect, it } from 'vitest';
import { usePostgresStores } from './support/postgres-harness.js';

const plan = clearOnePlan('thread-1');

describeWithPostgres(
  await postgresForTests(),
  'PostgreSQL plans written before a record list existed (ADR-0290)',
  (url) => {
    const stores = usePostgresStores(url, 'plan_upgrade');

    it('read back with the list empty, current and by version', async () => {
      const { plans, pool, names } = stores();
      expect(await plans.commit('tenant-a', 'thread-1', plan, 0)).toEqual({ committed: true, version: 1 });
      // What an earlier release stored: the same plan without `abridgements` (ADR-0265 added it).
      const updated = await pool.query(
        `UPDATE ${names.plans} SET plan = (plan::jsonb - 'abridgements')::json`,
      );
      expect(updated.rowCount).toBe(1);
      const current = await plans.getCurrent('tenant-a', 'thread-1');
      expect(current.plan?.abridgements).toEqual([]);
      expect(normalizePlan(current.plan!).actions.get('m1')?.action).toBe('clear');
      expect((await plans.getVersion('tenant-a', 'thread-1', 1))?.abridgements).toEqual([]);
    });
  },
);
