import { CompactorApiError, type CompactorClient, createCompactorClient } from '@compactor/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KEY_A,
  KEY_A_CONFIDENTIAL,
  messageEvent,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

let ingest: TestIngest;
let client: CompactorClient;
let baseUrl: string;

beforeAll(async () => {
  ingest = await startTestIngest();
  baseUrl = await ingest.app.listen({ port: 0, host: '127.0.0.1' });
  client = createCompactorClient({ baseUrl, apiKey: KEY_A, retryDelayMs: 5 });
});
afterAll(async () => {
  await ingest.cleanup();
});

describe('the ingest over a real socket, through @compactor/client', () => {
  it('serves every route', async () => {
    expect(await client.health()).toEqual({ status: 'ok' });
    expect((await client.ready()).status).toBe('ready');

    const created = await client.createThread({
      threadId: 'socket',
      model: 'claude-sonnet-4-5',
      policy: { keepRecentTurns: 1, keepRecentTokens: 0, clearAtLeastTokens: 10 },
    });
    expect(created).toEqual({ threadId: 'socket', version: 1, created: true });

    const events = [];
    for (let turn = 1; turn <= 4; turn += 1) {
      events.push(
        messageEvent('user', `question ${turn} ${'about bees and hives '.repeat(10)}`, {
          messageId: `u${turn}`,
        }),
        messageEvent('assistant', `answer ${turn} ${'bees dance to point at flowers. '.repeat(6)}`, {
          messageId: `a${turn}`,
        }),
      );
    }
    const appended = await client.appendEvents('socket', events, { expectedVersion: 1 });
    expect(appended.version).toBe(9);
    expect(appended.events.map((event) => event.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);

    const thread = await client.getThread('socket');
    expect(thread).toMatchObject({ version: 9, messageCount: 8, planVersion: 0 });
    expect(thread.tokens.messages).toBeGreaterThan(0);

    expect(await client.readAllEvents('socket')).toEqual(
      await ingest.stores.events.readAll(TENANT_A, 'socket'),
    );
    const page = await client.listEvents('socket', { fromSeq: 2, limit: 3 });
    expect(page.events.map((event) => event.seq)).toEqual([2, 3, 4]);
    expect(page.nextSeq).toBe(5);

    const compaction = await client.compact('socket', { force: true, instructions: 'keep the bee facts' });
    expect(compaction).toMatchObject({ status: 'committed', planVersion: 1 });
    const plan = await client.getPlan('socket');
    expect(plan.current.version).toBe(1);
    expect(plan.history).toHaveLength(1);

    const rendered = await client.renderPrompt('socket', {
      provider: 'openai-responses',
      budget: 4000,
      system: `Hi. ${'Use the house style. '.repeat(300)}`,
      tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }],
    });
    expect(rendered.report).toMatchObject({ provider: 'openai-responses', planVersion: 1, ceiling: 4000 });
    expect(rendered.tokens.total).toBeLessThanOrEqual(4000);
    expect(rendered.tokens.system).toBeGreaterThan(1_000);
    expect(rendered.tokens.tools).toBeGreaterThan(0);

    const searched = await client.searchHistory('socket', {
      toolCallId: 'sh_1',
      input: { query: 'bees dance' },
    });
    expect(searched.result).toMatchObject({
      toolName: 'search_history',
      toolCallId: 'sh_1',
      outcome: 'success',
    });
    expect(searched.hits.length).toBeGreaterThan(0);
    expect(searched.result.content).toContain('bees dance to point at flowers');

    const branch = await client.branch('socket', { fromMessageId: 'u2' });
    expect(branch).toMatchObject({ sourceThreadId: 'socket', fromMessageId: 'u2', created: true });
    expect((await client.getThread(branch.threadId)).messageCount).toBe(3);

    const artifact = await ingest.stores.artifacts.put('hive inspection notes', {
      tenantId: TENANT_A,
      threadId: 'socket',
      sensitivity: 'confidential',
    });
    const privileged = createCompactorClient({ baseUrl, apiKey: KEY_A_CONFIDENTIAL });
    expect((await privileged.readArtifact(artifact.artifactId)).content).toBe('hive inspection notes');

    expect(await client.metrics()).toContain('compactor_events_appended_total');
    expect(Object.keys((await client.openApi()).paths as object)).toContain('/v1/threads/{id}/branch');
  });

  it('surfaces errors as typed CompactorApiErrors', async () => {
    const stranger = createCompactorClient({ baseUrl, apiKey: 'nobody', retryDelayMs: 5 });
    const unauthorized = await stranger.getThread('socket').catch((error: unknown) => error);
    expect(CompactorApiError.isInstance(unauthorized)).toBe(true);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized', isRetryable: false });

    const conflict = await client
      .appendEvents('socket', [messageEvent('user', 'late')], { expectedVersion: 1 })
      .catch((error: unknown) => error);
    expect(conflict).toMatchObject({ status: 409, code: 'concurrency' });
    expect((conflict as CompactorApiError).details).toMatchObject({ expectedVersion: 1 });
  });
});
