import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventInput, StoredEvent } from '@compactor/core';
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

/** A fixture's stored events as the inputs a client would append. */
export function asInputs(events: readonly StoredEvent[]): EventInput[] {
  return events.map(
    ({ seq: _seq, tenantId: _tenantId, threadId: _threadId, ...input }) => input as EventInput,
  );
}
