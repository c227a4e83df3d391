import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStores } from '@compactor/embedded';

export type EmbeddedStores = Awaited<ReturnType<typeof createEmbeddedStores>>;

export async function withEmbeddedStores(): Promise<{
  stores: EmbeddedStores;
  cleanup: () => Promise<void>;
}> {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-engine-'));
  const stores = await createEmbeddedStores({ dataDir });
  return {
    stores,
    cleanup: async () => {
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
