/**
 * End-to-end 1: `compactor serve` (ingest + worker in one process, embedded stores, in-process
 * queue) over real HTTP: a transcript replayed through the API gets compacted, the rendered prompt
 * is valid and within budget, and bad input gets 400/401/404/409/413 and changes nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayThroughServer } from '@compactor/cli';
import { createCompactorClient } from '@compactor/client';
import { validateProviderRequest } from '@compactor/render/validate';
import { corpusAvailable, corpusFile } from '@compactor/testkit/corpus';
import { createTokenizer } from '@compactor/tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServe } from './serve-process.js';

const KEY_A = 'key-tenant-a';
const KEY_B = 'key-tenant-b';
let serve: ServeProcess;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'compactor-e2e-serve-'));
  serve = await startServe(['--port', '0', '--data-dir', dataDir], {
    COMPACTOR_API_KEYS: `${KEY_A}=tenant-a,${KEY_B}=tenant-b`,
    COMPACTOR_DEBOUNCE_MS: '50',
    COMPACTOR_MAX_BODY_BYTES: String(1024 * 1024),
  });
});

afterAll(async () => {
  const code = await serve?.stop();
  expect(code).toBe(0);
  await rm(dataDir, { recursive: true, force: true });
});

async function chatTranscript(): Promise<string> {
  const messages: unknown[] = [
    { role: 'user', content: 'Plan my vegetable garden. Never suggest pesticides.' },
  ];
  for (let turn = 1; turn <= 40; turn += 1) {
    messages.push({
      role: 'assistant',
      content: `Week ${turn}: ${'sow, water, mulch and watch for slugs. '.repeat(25)}`,
    });
    messages.push({ role: 'user', content: `And week ${turn + 1}?` });
  }
  const file = join(await mkdtemp(join(tmpdir(), 'compactor-e2e-')), 'garden.json');
  await writeFile(file, JSON.stringify({ model: 'gpt-4o', messages }));
  return file;
}

async function expectReplayCompacted(file: string, budget: number) {
  const { report, request } = await replayThroughServer(file, {
    format: 'auto',
    budget,
    server: serve.url,
    apiKey: KEY_A,
  });
  expect(report.planVersion).toBeGreaterThan(0);
  expect(report.tokensBefore).toBeGreaterThan(budget);
  expect(report.tokensAfter).toBeLessThanOrEqual(report.ceiling);
  expect(validateProviderRequest(report.provider, request).errors).toEqual([]);
  // Counted independently of the renderer: the request fits the ceiling.
  const tokenizer = createTokenizer({ model: report.model });
  expect(tokenizer.countRequest(request as never, report.provider)).toBeLessThanOrEqual(report.ceiling);
  return report;
}

describe('compactor serve over HTTP', () => {
  it('compacts a replayed conversation; the prompt is valid and within budget', async () => {
    await expectReplayCompacted(await chatTranscript(), 8000);
  });

  it.skipIf(!corpusAvailable('pi', 'session.jsonl'))(
    'does the same for a real pi session (needs ../shared/corpus)',
    async () => {
      const report = await expectReplayCompacted(corpusFile('pi', 'session.jsonl'), 64_000);
      expect(report.messages).toBeGreaterThan(400);
    },
  );

  it('answers bad input with 400/401/404/409/413 and changes nothing', async () => {
    const client = createCompactorClient({ baseUrl: serve.url, apiKey: KEY_A });
    const { threadId } = await client.createThread({ threadId: 'guarded', model: 'claude-sonnet-4-5' });
    await client.appendEvents(threadId, [
      {
        eventId: 'e1',
        type: 'message.appended',
        message: { id: 'm1', role: 'user', content: [{ type: 'text', text: 'hello' }] },
      },
    ]);
    const before = await client.getThread(threadId);
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${serve.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const eventsPath = `/v1/threads/${threadId}/events`;

    const invalid = await post(eventsPath, {
      events: [
        { eventId: 'bad', type: 'message.appended', message: { id: 'm2', role: 'user', content: [] } },
      ],
    });
    expect(invalid.status).toBe(400);
    const invalidBody = (await invalid.json()) as { error: { issues: Array<{ path: string }> } };
    expect(invalidBody.error.issues.length).toBeGreaterThan(0);
    expect(invalidBody.error.issues[0]!.path).toContain('content');

    expect((await fetch(`${serve.url}/v1/threads/${threadId}`)).status).toBe(401);
    expect(
      (await fetch(`${serve.url}/v1/threads/${threadId}`, { headers: { authorization: 'Bearer nope' } }))
        .status,
    ).toBe(401);
    expect(
      (await fetch(`${serve.url}/v1/threads/${threadId}`, { headers: { authorization: `Bearer ${KEY_B}` } }))
        .status,
    ).toBe(404);
    const otherTenantAppend = await fetch(`${serve.url}${eventsPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_B}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [
          {
            eventId: 'x',
            type: 'message.appended',
            message: { id: 'mx', role: 'user', content: [{ type: 'text', text: 'hi' }] },
          },
        ],
      }),
    });
    expect(otherTenantAppend.status).toBe(404);

    const stale = await post(
      eventsPath,
      {
        events: [
          {
            eventId: 'e2',
            type: 'message.appended',
            message: { id: 'm2', role: 'user', content: [{ type: 'text', text: 'late' }] },
          },
        ],
      },
      { 'if-match': '"1"' },
    );
    expect(stale.status).toBe(409);
    const conflicting = await post(eventsPath, {
      events: [
        {
          eventId: 'e1',
          type: 'message.appended',
          message: { id: 'm1', role: 'user', content: [{ type: 'text', text: 'changed' }] },
        },
      ],
    });
    expect(conflicting.status).toBe(409);

    const huge = await post(eventsPath, {
      events: [
        {
          eventId: 'e3',
          type: 'message.appended',
          message: { id: 'm3', role: 'user', content: [{ type: 'text', text: 'x'.repeat(2 * 1024 * 1024) }] },
        },
      ],
    });
    expect(huge.status).toBe(413);

    const after = await client.getThread(threadId);
    expect(after.version).toBe(before.version);
    expect(after.eventCount).toBe(before.eventCount);
    const events = await client.readAllEvents(threadId);
    expect(events.map((event) => event.type)).toEqual(['thread.created', 'message.appended']);
    expect(events[1]!.eventId).toBe('e1');
    expect(events[1]!.type === 'message.appended' && events[1]!.message.content).toEqual([
      { type: 'text', text: 'hello' },
    ]);
  });
});
