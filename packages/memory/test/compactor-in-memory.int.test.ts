import type { EventInput } from '@compactor/core';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { expect, it } from 'vitest';
import { createMemoryStores } from '../src/index.js';

function step(index: number): EventInput[] {
  return [
    {
      eventId: `u${index}`,
      type: 'message.appended',
      message: {
        id: `u${index}`,
        role: 'user',
        content: [{ type: 'text', text: `Step ${index}: summarise report ${index}.` }],
      },
    },
    {
      eventId: `a${index}`,
      type: 'message.appended',
      message: {
        id: `a${index}`,
        role: 'assistant',
        content: [
          { type: 'text', text: `Report ${index} lists 12 findings about module_${index}. `.repeat(20) },
        ],
      },
    },
  ];
}

it('createCompactor runs on the in-memory stores: no disk, compaction committed, every request within budget', async () => {
  const stores = createMemoryStores();
  const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
  await compactor.append('notebook', [
    { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 8_000 },
  ]);
  let largest = 0;
  for (let index = 1; index <= 40; index += 1) {
    await compactor.append('notebook', step(index));
    const prepared = await compactor.prepare('notebook', {
      provider: 'openai-chat',
      system: 'Be brief.',
      budget: 5_000,
    });
    largest = Math.max(largest, prepared.tokens.total);
  }
  expect(largest).toBeLessThanOrEqual(5_000);
  expect((await stores.plans.listVersions('local', 'notebook')).length).toBeGreaterThan(0);
  expect((await stores.lifecycle.list('local', 'notebook')).length).toBeGreaterThan(0);
  expect((await stores.events.getThread('local', 'notebook'))?.messageCount).toBe(80);
});
