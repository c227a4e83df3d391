import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Anthropic } from '@anthropic-ai/sdk';
import { startFakeMessagesApi, textResponse } from '@compactor/testkit/fake-messages-api';
import { expect, it } from 'vitest';
import { askWithCompaction } from '../examples/compacted-client.js';
import { continueAfterServerCompaction } from '../examples/server-compaction.js';
import { streamWithCompaction } from '../examples/streamed-client.js';

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

it('the README streaming example streams the compacted request and logs the answer', async () => {
  const fake = await startFakeMessagesApi();
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-anthropic-readme-stream-'));
  const written: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
  try {
    fake.enqueue(textResponse('It ships today, by noon.'));
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const { answer, logged } = await streamWithCompaction(anthropic, 'When does order A-1 ship?', dataDir);
    process.stdout.write = write;
    expect(written.join('')).toBe('It ships today, by noon.');
    expect(written.length).toBeGreaterThan(1);
    expect(answer.content).toEqual([{ type: 'text', text: 'It ships today, by noon.' }]);
    expect((fake.requests[0]!.body as { stream: boolean }).stream).toBe(true);
    const appended = logged.flatMap((event) => (event.type === 'message.appended' ? [event.message] : []));
    expect(appended.map((message) => [message.role, message.content])).toEqual([
      ['user', [{ type: 'text', text: 'When does order A-1 ship?' }]],
      ['assistant', [{ type: 'text', text: 'It ships today, by noon.' }]],
    ]);
  } finally {
    process.stdout.write = write;
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

it('the README server-side compaction example sends the compaction block back verbatim, first, to the beta API', async () => {
  const fake = await startFakeMessagesApi();
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-anthropic-readme-beta-'));
  const block = {
    type: 'compaction' as const,
    content: 'Migrating orders to v2: schema done, backfill pending.',
    encrypted_content: 'ZW5jcnlwdGVk',
    signature: 'c2lnbmVk',
    tool_changes: [],
  };
  try {
    fake.enqueue(textResponse('Run the backfill.'));
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 });
    const content = await continueAfterServerCompaction(
      anthropic,
      [
        { role: 'user', content: 'Plan the migration of orders to v2.' },
        { role: 'assistant', content: [block] },
        { role: 'user', content: 'What is the next step?' },
      ],
      dataDir,
    );
    expect(content).toEqual([{ type: 'text', text: 'Run the backfill.' }]);
    const request = fake.requests[0]!;
    expect(request.path).toBe('/v1/messages');
    const { messages } = request.body as { messages: { role: string; content: unknown[] }[] };
    // The block opens the request as it came; what it summarizes is not sent again.
    expect(JSON.stringify(messages[0])).toBe(JSON.stringify({ role: 'assistant', content: [block] }));
    expect(JSON.stringify(messages)).not.toContain('Plan the migration');
    expect(messages[1]!.role).toBe('user');
  } finally {
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
