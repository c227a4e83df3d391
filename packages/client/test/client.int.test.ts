import { afterEach, describe, expect, it } from 'vitest';
import {
  CompactorApiError,
  CompactorNetworkError,
  createCompactorClient,
  type RetryEvent,
} from '../src/index.js';
import { API_KEY, type RunningIngest, startIngest, TENANT, userMessage } from './support.js';

let ingest: RunningIngest | undefined;
afterEach(async () => {
  await ingest?.stop();
  ingest = undefined;
});

/** Counts the requests the server saw, by method and route template. */
function countRequests(app: RunningIngest['app'], counts: Map<string, number>) {
  app.addHook('onRequest', async (request) => {
    const key = `${request.method} ${request.routeOptions.url ?? request.url}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
}

describe('createCompactorClient against the real ingest', () => {
  it('makes typed calls', async () => {
    ingest = await startIngest();
    const client = createCompactorClient({ baseUrl: ingest.baseUrl, apiKey: API_KEY });
    const created = await client.createThread({ model: 'gpt-4o', metadata: { team: 'docs' } });
    expect(created.created).toBe(true);
    const appended = await client.appendEvents(created.threadId, [
      userMessage('e1', 'm1', 'hello'),
      userMessage('e2', 'm2', 'are you there?'),
    ]);
    expect(appended).toEqual({
      version: 3,
      events: [
        { eventId: 'e1', seq: 2 },
        { eventId: 'e2', seq: 3 },
      ],
      duplicates: 0,
    });
    const thread = await client.getThread(created.threadId);
    expect(thread).toMatchObject({
      model: 'gpt-4o',
      metadata: { team: 'docs' },
      messageCount: 2,
      version: 3,
    });
    const rendered = await client.renderPrompt(created.threadId, { provider: 'openai-chat' });
    expect(rendered.report.provider).toBe('openai-chat');
    expect(JSON.stringify(rendered.request)).toContain('are you there?');
  });

  it('retries an append after a 503 and gets the same seqs, storing nothing twice', async () => {
    const counts = new Map<string, number>();
    let failNextAppend = true;
    ingest = await startIngest((app) => {
      countRequests(app, counts);
      // The events are stored, then the answer is lost: a one-shot 503 replaces it.
      app.addHook('onSend', async (request, reply, payload) => {
        if (
          request.routeOptions.url === '/v1/threads/:id/events' &&
          request.method === 'POST' &&
          failNextAppend
        ) {
          failNextAppend = false;
          reply.code(503);
          return JSON.stringify({ error: { code: 'unavailable', message: 'simulated outage' } });
        }
        return payload;
      });
    });
    const retries: RetryEvent[] = [];
    const client = createCompactorClient({
      baseUrl: ingest.baseUrl,
      apiKey: API_KEY,
      retryDelayMs: 5,
      onRetry: (event) => retries.push(event),
    });
    await client.createThread({ threadId: 'flaky', model: 'gpt-4o' });
    const events = [userMessage('e1', 'm1', 'first'), userMessage('e2', 'm2', 'second')];
    const result = await client.appendEvents('flaky', events, { expectedVersion: 1 });
    expect(counts.get('POST /v1/threads/:id/events')).toBe(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toMatchObject({ status: 503, code: 'unavailable' });
    // The retry was all duplicates: the seqs the lost answer would have carried.
    expect(result).toEqual({
      version: 3,
      events: [
        { eventId: 'e1', seq: 2 },
        { eventId: 'e2', seq: 3 },
      ],
      duplicates: 2,
    });
    const stored = await ingest.stores.events.readAll(TENANT, 'flaky');
    expect(stored).toHaveLength(3);
    expect(stored.slice(1).map((event) => event.eventId)).toEqual(['e1', 'e2']);
  });

  it('does not retry a 4xx other than 429', async () => {
    const counts = new Map<string, number>();
    ingest = await startIngest((app) => countRequests(app, counts));
    const retries: RetryEvent[] = [];
    const client = createCompactorClient({
      baseUrl: ingest.baseUrl,
      apiKey: API_KEY,
      retryDelayMs: 5,
      onRetry: (event) => retries.push(event),
    });
    await client.createThread({ threadId: 'strict', model: 'gpt-4o' });
    const invalid = await client
      .appendEvents('strict', [
        {
          eventId: 'bad',
          type: 'message.appended',
          message: { id: 'x', role: 'tool', content: [{ type: 'text', text: 'no' }] },
        },
      ])
      .catch((error: unknown) => error);
    expect(CompactorApiError.isInstance(invalid)).toBe(true);
    expect(invalid).toMatchObject({ status: 400, code: 'validation', isRetryable: false });
    expect((invalid as CompactorApiError).issues[0]!.path).toBe('events.0.message.content.0.type');
    const missing = await client.getThread('missing').catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    const conflict = await client
      .appendEvents('strict', [userMessage('e1', 'm1', 'x')], { expectedVersion: 7 })
      .catch((error: unknown) => error);
    expect(conflict).toMatchObject({ status: 409, code: 'concurrency' });
    expect(counts.get('POST /v1/threads/:id/events')).toBe(2);
    expect(counts.get('GET /v1/threads/:id')).toBe(1);
    expect(retries).toEqual([]);
    expect(await ingest.stores.events.readAll(TENANT, 'strict')).toHaveLength(1);
  });

  it('retries a 429, waiting as Retry-After says', async () => {
    let throttled = 0;
    ingest = await startIngest((app) => {
      app.addHook('onRequest', async (request, reply) => {
        if (request.method === 'GET' && throttled < 1) {
          throttled += 1;
          await reply
            .code(429)
            .header('retry-after', '0')
            .send({ error: { code: 'unavailable', message: 'slow down' } });
        }
      });
    });
    const retries: RetryEvent[] = [];
    const client = createCompactorClient({
      baseUrl: ingest.baseUrl,
      apiKey: API_KEY,
      onRetry: (event) => retries.push(event),
    });
    expect(await client.health()).toEqual({ status: 'ok' });
    expect(
      retries.map((event) => [event.retry, event.delayMs, (event.error as CompactorApiError).status]),
    ).toEqual([[1, 0, 429]]);
  });

  it('retries network errors, then gives up with a CompactorNetworkError', async () => {
    ingest = await startIngest();
    let failures = 1;
    const flakyFetch: typeof fetch = async (input, init) => {
      if (failures > 0) {
        failures -= 1;
        throw new TypeError('fetch failed: connection reset');
      }
      return fetch(input, init);
    };
    const client = createCompactorClient({
      baseUrl: ingest.baseUrl,
      apiKey: API_KEY,
      fetch: flakyFetch,
      retryDelayMs: 5,
    });
    await client.createThread({ threadId: 'net', model: 'gpt-4o' });
    failures = 1;
    const result = await client.appendEvents('net', [userMessage('e1', 'm1', 'through the static')]);
    expect(result.events).toEqual([{ eventId: 'e1', seq: 2 }]);
    expect(await ingest.stores.events.readAll(TENANT, 'net')).toHaveLength(2);

    const closedPort = ingest.baseUrl;
    await ingest.stop();
    ingest = undefined;
    const retries: RetryEvent[] = [];
    const unreachable = createCompactorClient({
      baseUrl: closedPort,
      apiKey: API_KEY,
      retries: 2,
      retryDelayMs: 5,
      onRetry: (event) => retries.push(event),
    });
    const error = await unreachable.health().catch((thrown: unknown) => thrown);
    expect(CompactorNetworkError.isInstance(error)).toBe(true);
    expect(CompactorApiError.isInstance(error)).toBe(false);
    expect(retries).toHaveLength(2);
  });

  it('does not retry a manual compaction', async () => {
    const counts = new Map<string, number>();
    ingest = await startIngest((app) => {
      countRequests(app, counts);
      app.addHook('onRequest', async (request, reply) => {
        if (request.routeOptions.url === '/v1/threads/:id/compact') {
          await reply.code(503).send({ error: { code: 'unavailable', message: 'busy' } });
        }
      });
    });
    const client = createCompactorClient({ baseUrl: ingest.baseUrl, apiKey: API_KEY, retryDelayMs: 5 });
    const error = await client.compact('any', { force: true }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 503, isRetryable: true });
    expect(counts.get('POST /v1/threads/:id/compact')).toBe(1);
  });
});
