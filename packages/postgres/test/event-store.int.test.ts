import { testEventStore } from '@compactor/testkit/contracts/event-store';
import { describeWithPostgres, postgresForTests } from '@compactor/testkit/postgres';
import { usePostgresStores } from './support/postgres-harness.js';

describeWithPostgres(await postgresForTests(), 'PostgreSQL EventStore contract', (url) => {
  const stores = usePostgresStores(url, 'events');
  testEventStore('postgres', async () => ({ store: stores().events }));
});
