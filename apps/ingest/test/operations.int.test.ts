import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  RecordingQueue,
  startTestIngest,
  type TestIngest,
} from './support.js';

let ingest: TestIngest;
let queue: RecordingQueue;
beforeEach(async () => {
  queue = new RecordingQueue();
  ingest = await startTestIngest({ queue });
});
afterEach(async () => {
  await ingest.cleanup();
});

/** The value of one sample of the Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('operations', () => {
  it('/healthz answers while the process runs', async () => {
    const response = await ingest.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers 200 while the stores answer and 503 once one does not', async () => {
    const ready = await ingest.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ events: 'ok', plans: 'ok', artifacts: 'ok', lifecycle: 'ok' });
    await ingest.stores.plans.close();
    const notReady = await ingest.app.inject({ method: 'GET', url: '/readyz' });
    expect(notReady.statusCode).toBe(503);
    const body = notReady.json();
    expect(body.error.code).toBe('unavailable');
    expect(body.error.details.checks.events).toBe('ok');
    expect(body.error.details.checks.plans).toMatch(/^error: /);
  });

  it('/metrics counts requests by route and status, appends, events and enqueue failures', async () => {
    await createThread(ingest.app, KEY_A, { threadId: 'metered', model: 'gpt-4o' });
    await appendEvents(ingest.app, KEY_A, 'metered', [
      messageEvent('user', 'a'),
      messageEvent('assistant', 'b'),
    ]);
    queue.failing = true;
    await appendEvents(ingest.app, KEY_A, 'metered', [messageEvent('user', 'c')]);
    await ingest.app.inject({ method: 'GET', url: '/v1/threads/metered', headers: bearer('wrong') });
    const response = await ingest.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const text = response.body;
    expect(
      sample(text, 'compactor_http_requests_total', { route: '/v1/threads/:id/events', status: '201' }),
    ).toBe(2);
    expect(sample(text, 'compactor_http_requests_total', { route: '/v1/threads/:id', status: '401' })).toBe(
      1,
    );
    expect(sample(text, 'compactor_appends_total', { outcome: 'stored' })).toBe(3);
    expect(sample(text, 'compactor_events_appended_total')).toBe(4);
    expect(sample(text, 'compactor_enqueue_failures_total', { reason: 'queue' })).toBe(1);
  });

  it('/openapi.json lists every route with its methods', async () => {
    const response = await ingest.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\./);
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'POST /v1/threads',
        'POST /v1/threads/{id}/events',
        'POST /v1/threads/{id}/prompt',
        'POST /v1/threads/{id}/search-history',
        'GET /v1/threads/{id}',
        'GET /v1/threads/{id}/events',
        'GET /v1/threads/{id}/plan',
        'GET /v1/threads/{id}/prompt',
        'POST /v1/threads/{id}/compact',
        'POST /v1/threads/{id}/snapshots',
        'POST /v1/threads/{id}/branch',
        'GET /v1/artifacts/{id}',
        'GET /v1/threads',
        'GET /v1/threads/{id}/lifecycle',
        'GET /v1/threads/{id}/lifecycle/stream',
        'GET /v1/threads/{id}/plans/{version}/diff',
        'PATCH /v1/threads/{id}/policy',
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /openapi.json',
      ].sort(),
    );
    const append = document.paths['/v1/threads/{id}/events']!.post as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      security: unknown[];
    };
    expect(Object.keys(append.requestBody.content['application/json']!.schema.properties)).toEqual([
      'events',
    ]);
    expect(append.security).toEqual([{ apiKey: [] }]);
  });

  it('answers unknown routes with the error envelope', async () => {
    const response = await ingest.app.inject({ method: 'GET', url: '/v2/nothing' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('route_not_found');
  });
});
