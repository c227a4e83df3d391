import { testPlanStore } from '@compactor/testkit/contracts/plan-store';
import { describeWithPostgres, postgresForTests } from '@compactor/testkit/postgres';
import { usePostgresStores } from './support/postgres-harness.js';

describeWithPostgres(await postgresForTests(), 'PostgreSQL PlanStore contract', (url) => {
  const stores = usePostgresStores(url, 'plans');
  testPlanStore('postgres', async () => ({ store: stores().plans }));
});
