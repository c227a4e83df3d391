import { testEventStore } from '@compactor/testkit/contracts/event-store';
import { describeWithMongo, useMongoStores } from './support/mongo-harness.js';

describeWithMongo('MongoDB EventStore contract', (uri) => {
  const stores = useMongoStores(uri, 'events');
  testEventStore('mongo', async () => ({ store: stores().events }));
});
