import {
  testEventStore,
  testLifecycleEventLog,
  testPlanStore,
  testSummaryCache,
} from '@compactor/testkit/contracts/index';
import { createMemoryStores } from '../src/index.js';

testEventStore('memory', async () => ({ store: createMemoryStores().events }));
testPlanStore('memory', async () => ({ store: createMemoryStores().plans }));
testSummaryCache('memory', async () => ({ store: createMemoryStores().summaries }));
testLifecycleEventLog('memory', async () => ({ store: createMemoryStores().lifecycle }));
