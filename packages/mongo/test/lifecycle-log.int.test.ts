import { testLifecycleEventLog } from '@compactor/testkit/contracts/lifecycle-log';
import { describeWithMongo, useMongoStores } from './support/mongo-harness.js';

describeWithMongo('MongoDB LifecycleEventLog contract', (uri) => {
  const stores = useMongoStores(uri, 'lifecycle');
  testLifecycleEventLog('mongo', async () => ({ store: stores().lifecycle }));
});
