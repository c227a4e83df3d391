import { testSummaryCache } from '@compactor/testkit/contracts/summary-cache';
import { describeWithPostgres, postgresForTests } from '@compactor/testkit/postgres';
import { usePostgresStores } from './support/postgres-harness.js';

describeWithPostgres(await postgresForTests(), 'PostgreSQL SummaryCache contract', (url) => {
  const stores = usePostgresStores(url, 'summaries');
  testSummaryCache('postgres', async () => ({ store: stores().summaries }));
});
