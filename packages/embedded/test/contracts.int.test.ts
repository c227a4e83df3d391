import { readFile, writeFile } from 'node:fs/promises';
import {
  testArtifactStore,
  testEventStore,
  testLifecycleEventLog,
  testPlanStore,
  testSummaryCache,
} from '@compactor/testkit/contracts/index';
import { DataLayout, EMBEDDED_SHARING_MODES } from '../src/index.js';
import { openTemporaryStores } from './temporary-data-directory.js';

// Every contract holds in both modes: `embedded` (exclusive) and `embedded (shared)`.
for (const sharing of EMBEDDED_SHARING_MODES) {
  const name = sharing === 'exclusive' ? 'embedded' : 'embedded (shared)';

  testEventStore(name, async () => {
    const { stores, cleanup } = await openTemporaryStores(undefined, sharing);
    return { store: stores.events, cleanup };
  });

  testPlanStore(name, async () => {
    const { stores, cleanup } = await openTemporaryStores(undefined, sharing);
    return { store: stores.plans, cleanup };
  });

  testSummaryCache(name, async () => {
    const { stores, cleanup } = await openTemporaryStores(undefined, sharing);
    return { store: stores.summaries, cleanup };
  });

  testLifecycleEventLog(name, async () => {
    const { stores, cleanup } = await openTemporaryStores(undefined, sharing);
    return { store: stores.lifecycle, cleanup };
  });

  testArtifactStore(name, async (clock) => {
    const { stores, cleanup } = await openTemporaryStores(clock, sharing);
    const layout = new DataLayout(stores.dataDir);
    return {
      store: stores.artifacts,
      cleanup,
      corruptContent: async (artifactId, tenantId) => {
        const path = layout.artifactContent(layout.tenantSegment(tenantId), artifactId);
        const bytes = await readFile(path);
        bytes[0] = bytes[0]! ^ 0xff; // flip one byte, same length
        await writeFile(path, bytes);
      },
    };
  });
}
