import { testPlanStore } from '@compactor/testkit/contracts/plan-store';
import { describeWithMongo, useMongoStores } from './support/mongo-harness.js';

describeWithMongo('MongoDB PlanStore contract', (uri) => {
  const stores = useMongoStores(uri, 'plans');
  testPlanStore('mongo', async () => ({ store: stores().plans }));
});
