import { testSummaryCache } from '@compactor/testkit/contracts/summary-cache';
import { describeWithMongo, useMongoStores } from './support/mongo-harness.js';

describeWithMongo('MongoDB SummaryCache contract', (uri) => {
  const stores = useMongoStores(uri, 'summaries');
  testSummaryCache('mongo', async () => ({ store: stores().summaries }));
});
