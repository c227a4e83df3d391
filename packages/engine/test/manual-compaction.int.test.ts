import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { expect, it } from 'vitest';
import { createCompactionEngine } from '../src/index.js';

it('forced compaction with nothing outside the protected tail says the instructions went unused', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-manual-'));
  const stores = await createEmbeddedStores({ dataDir });
  try {
    await stores.events.append('acme', 'short', [
      { eventId: 'c', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
      {
        eventId: 'u',
        type: 'message.appended',
        message: { id: 'u', role: 'user', content: [{ type: 'text', text: 'Hi.' }] },
      },
      {
        eventId: 'a',
        type: 'message.appended',
        message: { id: 'a', role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      },
    ]);
    const engine = createCompactionEngine({
      ...stores,
      summarizer: createExtractiveSummarizer(),
      clock: systemClock,
    });
    const withInstructions = await engine.compactThread('acme', 'short', {
      force: true,
      instructions: 'keep every path',
    });
    expect(withInstructions.commit.status).toBe('not_needed');
    expect(withInstructions.planner?.reason).toBe(
      'nothing outside the protected tail could be compacted; the instructions were not used',
    );
    const without = await engine.compactThread('acme', 'short', { force: true });
    expect(without.planner?.reason).toBe('nothing outside the protected tail could be compacted');
  } finally {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
