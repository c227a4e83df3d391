import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Anthropic } from '@anthropic-ai/sdk';
import { startFakeMessagesApi, textResponse } from '@compactor/testkit/fake-messages-api';
import { expect, it } from 'vitest';
import { askWithCompaction } from '../examples/compacted-client.js';

it('the README example sends the compacted request through the real SDK', async () => {
  const fake = await startFakeMessagesApi();
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-anthropic-readme-'));
  try {
    fake.enqueue(textResponse('It ships today.'));
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const content = await askWithCompaction(anthropic, 'When does order A-1 ship?', dataDir);
    expect(content).toEqual([{ type: 'text', text: 'It ships today.' }]);
    expect((fake.requests[0]!.body as { messages: unknown }).messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'When does order A-1 ship?', cache_control: { type: 'ephemeral' } }],
      },
    ]);
  } finally {
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
