import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendEvents,
  bearer,
  createConversation,
  KEY_A,
  KEY_B,
  messageEvent,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

let ingest: TestIngest;
beforeEach(async () => {
  ingest = await startTestIngest();
  await createConversation(ingest.app, KEY_A, 'private', 2);
});
afterEach(async () => {
  await ingest.cleanup();
});

describe('authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['an unknown key', bearer('not-a-key')],
    ['another scheme', { authorization: `Basic ${KEY_A}` }],
  ])('answers 401 with WWW-Authenticate for %s', async (_case, headers) => {
    const response = await ingest.app.inject({ method: 'GET', url: '/v1/threads/private', headers });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.json().error.code).toBe('unauthorized');
  });

  it('stores nothing for an unauthenticated append', async () => {
    const response = await ingest.app.inject({
      method: 'POST',
      url: '/v1/threads/private/events',
      payload: { events: [messageEvent('user', 'sneaky')] },
    });
    expect(response.statusCode).toBe(401);
    expect((await ingest.stores.events.getThread(TENANT_A, 'private'))!.version).toBe(5);
  });

  it('leaves the operational routes open', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
      const response = await ingest.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
    }
  });
});

describe('tenant isolation', () => {
  it.each([
    ['GET', '/v1/threads/private', undefined],
    ['GET', '/v1/threads/private/events', undefined],
    ['GET', '/v1/threads/private/plan', undefined],
    ['GET', '/v1/threads/private/prompt?provider=anthropic', undefined],
    ['POST', '/v1/threads/private/compact', { force: true }],
    ['POST', '/v1/threads/private/branch', { fromMessageId: 'u1', newThreadId: 'stolen' }],
  ] as const)('answers 404 for %s %s of another tenant', async (method, url, payload) => {
    const response = await ingest.app.inject({
      method,
      url,
      headers: bearer(KEY_B),
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
  });

  it("does not append to another tenant's thread, nor create one of the same id", async () => {
    const response = await appendEvents(ingest.app, KEY_B, 'private', [messageEvent('user', 'hello')]);
    expect(response.statusCode).toBe(404);
    expect((await ingest.stores.events.getThread(TENANT_A, 'private'))!.version).toBe(5);
    expect(await ingest.stores.plans.getCurrent(TENANT_A, 'private')).toEqual({ plan: null, version: 0 });
    expect(await ingest.stores.events.getThread('tenant-b', 'stolen')).toBeNull();
  });
});
