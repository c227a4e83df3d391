import { readFile, writeFile } from 'node:fs/promises';
import {
  testArtifactStore,
  testEventStore,
  testLifecycleEventLog,
  testPlanStore,
  testSummaryCache,
} from '@compactor/testkit/contracts/index';
import { DataLayout } from '../src/index.js';
import { openTemporaryStores } from './temporary-data-directory.js';

testEventStore('embedded', async () => {
  const { stores, cleanup } = await openTemporaryStores();
  return { store: stores.events, cleanup };
});

testPlanStore('embedded', async () => {
  const { stores, cleanup } = await openTemporaryStores();
  return { store: stores.plans, cleanup };
});

testSummaryCache('embedded', async () => {
  const { stores, cleanup } = await openTemporaryStores();
  return { store: stores.summaries, cleanup };
});

testLifecycleEventLog('embedded', async () => {
  const { stores, cleanup } = await openTemporaryStores();
  return { store: stores.lifecycle, cleanup };
});

testArtifactStore('embedded', async (clock) => {
  const { stores, cleanup } = await openTemporaryStores(clock);
  const layout = new DataLayout(stores.dataDir);
  return {
    store: stores.artifacts,
    cleanup,
    corruptContent: async (artifactId) => {
      const path = layout.artifactContent(artifactId);
      const bytes = await readFile(path);
      bytes[0] = bytes[0]! ^ 0xff; // flip one byte, same length
      await writeFile(path, bytes);
    },
  };
});
