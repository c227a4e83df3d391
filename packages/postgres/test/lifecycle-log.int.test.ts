import { testLifecycleEventLog } from '@compactor/testkit/contracts/lifecycle-log';
import { describeWithPostgres, postgresForTests } from '@compactor/testkit/postgres';
import { usePostgresStores } from './support/postgres-harness.js';

describeWithPostgres(await postgresForTests(), 'PostgreSQL LifecycleEventLog contract', (url) => {
  const stores = usePostgresStores(url, 'lifecycle');
  testLifecycleEventLog('postgres', async () => ({ store: stores().lifecycle }));
});
