import { createTokenizer } from '@compactor/tokenizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

let ingest: TestIngest;
beforeEach(async () => {
  ingest = await startTestIngest();
});
afterEach(async () => {
  await ingest.cleanup();
});

describe('POST /v1/threads', () => {
  it('creates a thread with the window of a known model and is idempotent when retried', async () => {
    const body = { threadId: 'thread-1', model: 'claude-sonnet-4-5', eventId: 'create-1' };
    const first = await createThread(ingest.app, KEY_A, body);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ threadId: 'thread-1', version: 1, created: true });
    const retry = await createThread(ingest.app, KEY_A, body);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual({ threadId: 'thread-1', version: 1, created: false });
    const stored = await ingest.stores.events.readAll(TENANT_A, 'thread-1');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      type: 'thread.created',
      model: 'claude-sonnet-4-5',
      contextWindow: 200_000,
    });
  });

  it('generates a thread id when none is given', async () => {
    const response = await createThread(ingest.app, KEY_A, { model: 'gpt-4o' });
    expect(response.statusCode).toBe(201);
    const { threadId } = response.json() as { threadId: string };
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await ingest.stores.events.getThread(TENANT_A, threadId)).toMatchObject({ model: 'gpt-4o' });
  });

  it('answers 409 when the thread id is taken by another creation', async () => {
    await createThread(ingest.app, KEY_A, { threadId: 'taken', model: 'gpt-4o' });
    const again = await createThread(ingest.app, KEY_A, {
      threadId: 'taken',
      model: 'gpt-4o-mini',
      eventId: 'other',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('concurrency');
    const sameIdDifferentContent = await createThread(ingest.app, KEY_A, {
      threadId: 'taken',
      model: 'gpt-4o-mini',
    });
    expect(sameIdDifferentContent.statusCode).toBe(409);
    expect(sameIdDifferentContent.json().error.code).toBe('idempotency_conflict');
    expect((await ingest.stores.events.readAll(TENANT_A, 'taken'))[0]).toMatchObject({ model: 'gpt-4o' });
  });

  it('refuses an unknown model without explicit numbers (422) and accepts it with them', async () => {
    const refused = await createThread(ingest.app, KEY_A, { threadId: 'custom', model: 'acme-llm-7' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'unknown_model', details: { model: 'acme-llm-7' } });
    expect(await ingest.stores.events.getThread(TENANT_A, 'custom')).toBeNull();

    const accepted = await createThread(ingest.app, KEY_A, {
      threadId: 'custom',
      model: 'acme-llm-7',
      contextWindow: 32_000,
      maxOutputTokens: 4_000,
      tokenizerFamily: 'cl100k_base',
    });
    expect(accepted.statusCode).toBe(201);
    // Its messages are counted with the family the creator named.
    const text = 'counting with the family the creator named';
    await appendEvents(ingest.app, KEY_A, 'custom', [messageEvent('user', text)]);
    const thread = await ingest.stores.events.getThread(TENANT_A, 'custom');
    const expected = createTokenizer({
      model: 'acme-llm-7',
      modelInfo: { contextWindow: 32_000, maxOutputTokens: 4_000, tokenizerFamily: 'cl100k_base' },
    }).countMessage({ id: 'x', role: 'user', content: [{ type: 'text', text }] }, 'openai-chat');
    expect(thread).toMatchObject({ contextWindow: 32_000, messageTokens: expected });
  });

  it('answers 400 with field-level issues for bad input and stores nothing', async () => {
    const response = await createThread(ingest.app, KEY_A, {
      threadId: 'bad thread id',
      model: '',
      contextWindow: -5,
      policy: { keepRecentTurns: 'three' },
      unexpected: true,
    });
    expect(response.statusCode).toBe(400);
    const error = response.json().error;
    expect(error.code).toBe('validation');
    const paths = error.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining(['threadId', 'model', 'contextWindow', 'policy.keepRecentTurns']),
    );
    expect((await ingest.stores.events.listThreads(TENANT_A)).threads).toEqual([]);
  });
});

describe('POST /v1/threads/:id/events', () => {
  beforeEach(async () => {
    await createThread(ingest.app, KEY_A, { threadId: 'chat', model: 'claude-sonnet-4-5' });
  });

  it('stores a batch, counts each message with the thread model, and answers seqs and an ETag', async () => {
    const events = [messageEvent('user', 'hello there'), messageEvent('assistant', 'hi, how can I help?')];
    const response = await appendEvents(ingest.app, KEY_A, 'chat', events);
    expect(response.statusCode).toBe(201);
    expect(response.headers.etag).toBe('"3"');
    expect(response.json()).toEqual({
      version: 3,
      events: [
        { eventId: events[0]!.eventId, seq: 2 },
        { eventId: events[1]!.eventId, seq: 3 },
      ],
      duplicates: 0,
    });
    const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });
    const expected = events.map((event) => tokenizer.countMessage(event.message, 'anthropic'));
    const stored = await ingest.stores.events.readAll(TENANT_A, 'chat');
    expect(stored.slice(1).map((event) => event.tokens)).toEqual(expected);
    expect((await ingest.stores.events.getThread(TENANT_A, 'chat'))!.messageTokens).toBe(
      expected[0]! + expected[1]!,
    );
  });

  it('returns the same seqs for a retried batch and stores nothing twice', async () => {
    const events = [messageEvent('user', 'one'), messageEvent('assistant', 'two')];
    const first = await appendEvents(ingest.app, KEY_A, 'chat', events);
    const retry = await appendEvents(ingest.app, KEY_A, 'chat', events, { 'if-match': '"1"' });
    expect(retry.statusCode).toBe(201);
    expect(retry.json().events).toEqual(first.json().events);
    expect(retry.json().duplicates).toBe(2);
    expect(await ingest.stores.events.readAll(TENANT_A, 'chat')).toHaveLength(3);
  });

  it('honours If-Match, quoted or not, and answers 409 on a mismatch without storing', async () => {
    const matched = await appendEvents(ingest.app, KEY_A, 'chat', [messageEvent('user', 'a')], {
      'if-match': '"1"',
    });
    expect(matched.statusCode).toBe(201);
    const bare = await appendEvents(ingest.app, KEY_A, 'chat', [messageEvent('assistant', 'b')], {
      'if-match': '2',
    });
    expect(bare.statusCode).toBe(201);
    const stale = await appendEvents(ingest.app, KEY_A, 'chat', [messageEvent('user', 'c')], {
      'if-match': '"2"',
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error).toMatchObject({
      code: 'concurrency',
      details: { expectedVersion: 2, actualVersion: 3 },
    });
    const malformed = await appendEvents(ingest.app, KEY_A, 'chat', [messageEvent('user', 'd')], {
      'if-match': '*',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.issues[0].path).toBe('headers.if-match');
    expect(await ingest.stores.events.readAll(TENANT_A, 'chat')).toHaveLength(3);
  });

  it('answers 409 when an event id is reused with different content, storing nothing of the batch', async () => {
    await appendEvents(ingest.app, KEY_A, 'chat', [
      messageEvent('user', 'original', { eventId: 'e1', messageId: 'm1' }),
    ]);
    const reused = await appendEvents(ingest.app, KEY_A, 'chat', [
      messageEvent('assistant', 'fresh', { eventId: 'e2', messageId: 'm2' }),
      messageEvent('user', 'changed', { eventId: 'e1', messageId: 'm1' }),
    ]);
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error).toMatchObject({ code: 'idempotency_conflict', details: { eventId: 'e1' } });
    expect(await ingest.stores.events.readAll(TENANT_A, 'chat')).toHaveLength(2);
  });

  it('answers 400 with field-level issues for bad events and stores nothing', async () => {
    const response = await appendEvents(ingest.app, KEY_A, 'chat', [
      messageEvent('user', 'fine'),
      {
        eventId: 'x1',
        type: 'message.appended',
        message: { id: 'q', role: 'tool', content: [{ type: 'text', text: 'a' }] },
      },
      { eventId: '', type: 'message.appended', message: { id: 'r', role: 'robot', content: [] } },
    ]);
    expect(response.statusCode).toBe(400);
    const paths = response.json().error.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'events.1.message.content.0.type',
        'events.2.eventId',
        'events.2.message.role',
      ]),
    );
    expect(await ingest.stores.events.readAll(TENANT_A, 'chat')).toHaveLength(1);
  });

  it('refuses events only the service writes, a duplicate message id and an empty batch', async () => {
    const planEvent = await appendEvents(ingest.app, KEY_A, 'chat', [
      {
        eventId: 'p',
        type: 'plan.committed',
        planVersion: 1,
        basedOnSeq: 1,
        tokensBefore: 1,
        tokensAfter: 1,
      },
    ]);
    expect(planEvent.statusCode).toBe(400);
    expect(planEvent.json().error.issues).toEqual([expect.objectContaining({ path: 'events.0.type' })]);
    await appendEvents(ingest.app, KEY_A, 'chat', [messageEvent('user', 'first', { messageId: 'same' })]);
    const duplicate = await appendEvents(ingest.app, KEY_A, 'chat', [
      messageEvent('user', 'again', { messageId: 'same' }),
    ]);
    expect(duplicate.statusCode).toBe(400);
    expect(duplicate.json().error.issues[0].path).toBe('events.0.message.id');
    const empty = await appendEvents(ingest.app, KEY_A, 'chat', []);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.issues[0].path).toBe('events');
    expect(await ingest.stores.events.readAll(TENANT_A, 'chat')).toHaveLength(2);
  });

  it('answers 400 for malformed JSON and 415 for a body that is not JSON, storing nothing', async () => {
    const malformed = await ingest.app.inject({
      method: 'POST',
      url: '/v1/threads/chat/events',
      headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
      payload: '{"events": [',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.code).toBe('validation');
    const text = await ingest.app.inject({
      method: 'POST',
      url: '/v1/threads/chat/events',
      headers: { ...bearer(KEY_A), 'content-type': 'application/xml' },
      payload: '<events/>',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('unsupported_media_type');
    expect(await ingest.stores.events.readAll(TENANT_A, 'chat')).toHaveLength(1);
  });

  it('answers 404 for an unknown thread', async () => {
    const response = await appendEvents(ingest.app, KEY_A, 'nowhere', [messageEvent('user', 'hello')]);
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
    expect(await ingest.stores.events.getThread(TENANT_A, 'nowhere')).toBeNull();
  });

  it('answers 413 for a body over the limit and for too many events, storing nothing', async () => {
    const huge = await appendEvents(ingest.app, KEY_A, 'chat', [
      messageEvent('user', 'x'.repeat(300 * 1024)),
    ]);
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('payload_too_large');
    const many = Array.from({ length: 51 }, (_, index) => messageEvent('user', `message ${index}`));
    const tooMany = await appendEvents(ingest.app, KEY_A, 'chat', many);
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json().error).toMatchObject({
      code: 'payload_too_large',
      details: { maxEventsPerBatch: 50, events: 51 },
    });
    const fifty = await appendEvents(ingest.app, KEY_A, 'chat', many.slice(0, 50));
    expect(fifty.statusCode).toBe(201);
    expect(await ingest.stores.events.readAll(TENANT_A, 'chat')).toHaveLength(51);
  });
});

describe('reading a thread', () => {
  it('GET /v1/threads/:id answers metadata, token totals and the plan version', async () => {
    await createThread(ingest.app, KEY_A, {
      threadId: 'read-me',
      model: 'gpt-4o',
      contextWindow: 64_000,
      policy: { keepRecentTurns: 2 },
      metadata: { project: 'garden' },
    });
    const appended = await appendEvents(ingest.app, KEY_A, 'read-me', [
      messageEvent('user', 'hello'),
      messageEvent('assistant', 'hello to you'),
    ]);
    expect(appended.statusCode).toBe(201);
    const response = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/read-me',
      headers: bearer(KEY_A),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('"3"');
    const stored = await ingest.stores.events.getThread(TENANT_A, 'read-me');
    expect(response.json()).toMatchObject({
      threadId: 'read-me',
      model: 'gpt-4o',
      contextWindow: 64_000,
      metadata: { project: 'garden' },
      version: 3,
      eventCount: 3,
      messageCount: 2,
      tokens: { messages: stored!.messageTokens, compacted: null },
      planVersion: 0,
      plan: null,
      compactionPending: false,
      branchedFrom: null,
    });
    expect(stored!.messageTokens).toBeGreaterThan(0);
    expect(response.json().policy.keepRecentTurns).toBe(2);
  });

  it('GET /v1/threads/:id/events pages with nextSeq', async () => {
    await createThread(ingest.app, KEY_A, { threadId: 'paged', model: 'gpt-4o' });
    const events = Array.from({ length: 5 }, (_, index) =>
      messageEvent(index % 2 ? 'assistant' : 'user', `m${index}`),
    );
    await appendEvents(ingest.app, KEY_A, 'paged', events);
    const seen: number[] = [];
    let fromSeq: number | null = 1;
    let pages = 0;
    while (fromSeq !== null) {
      const response = await ingest.app.inject({
        method: 'GET',
        url: `/v1/threads/paged/events?fromSeq=${fromSeq}&limit=2`,
        headers: bearer(KEY_A),
      });
      expect(response.statusCode).toBe(200);
      const page = response.json() as { events: Array<{ seq: number }>; nextSeq: number | null };
      seen.push(...page.events.map((event) => event.seq));
      fromSeq = page.nextSeq;
      pages += 1;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pages).toBe(3);
    const bad = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/paged/events?fromSeq=0&limit=abc',
      headers: bearer(KEY_A),
    });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .error.issues.map((issue: { path: string }) => issue.path)
        .sort(),
    ).toEqual(['query.fromSeq', 'query.limit']);
  });
});
