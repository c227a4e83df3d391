import { createCompactorClient } from '@compactor/client';
import { createCompactionEngine } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/index.js';
import {
  appendTurns,
  createConversation,
  KEY_A,
  KEY_B,
  listenOnLoopback,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

let ingest: TestIngest;
let base: string;

beforeEach(async () => {
  ingest = await startTestIngest();
  const { host, port } = await listenOnLoopback(ingest.app);
  base = `http://${host}:${port}`;
});
afterEach(async () => {
  await ingest.cleanup();
});

async function call(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

const forceCompact = (threadId: string, instructions = 'keep the soil facts') =>
  call(KEY_A, 'POST', `/v1/threads/${threadId}/compact`, { force: true, instructions });

describe('GET /v1/threads', () => {
  it("lists only the caller tenant's threads, pages with a cursor and filters by id prefix", async () => {
    for (const id of ['alpha-1', 'alpha-2', 'beta-1']) await createConversation(ingest.app, KEY_A, id, 2);
    await createConversation(ingest.app, KEY_B, 'alpha-b', 1);

    const all = await call(KEY_A, 'GET', '/v1/threads');
    expect(all.status).toBe(200);
    expect(all.json.threads.map((row: { threadId: string }) => row.threadId)).toEqual([
      'alpha-1',
      'alpha-2',
      'beta-1',
    ]);
    expect(all.json.nextCursor).toBeNull();
    const other = await call(KEY_B, 'GET', '/v1/threads');
    expect(other.json.threads.map((row: { threadId: string }) => row.threadId)).toEqual(['alpha-b']);

    const prefixed = await call(KEY_A, 'GET', '/v1/threads?prefix=alpha');
    expect(prefixed.json.threads.map((row: { threadId: string }) => row.threadId)).toEqual([
      'alpha-1',
      'alpha-2',
    ]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await call(
        KEY_A,
        'GET',
        `/v1/threads?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.json.threads.length).toBeLessThanOrEqual(1);
      seen.push(...page.json.threads.map((row: { threadId: string }) => row.threadId));
      cursor = page.json.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(['alpha-1', 'alpha-2', 'beta-1']);
  });

  it('reports tokens now against the ceiling, the plan version and the last compaction', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 6);
    const stored = await ingest.stores.events.getThread(TENANT_A, 'garden');
    const before = (await call(KEY_A, 'GET', '/v1/threads')).json.threads[0];
    expect(before).toMatchObject({
      threadId: 'garden',
      model: 'claude-sonnet-4-5',
      contextWindow: stored!.contextWindow,
      planVersion: 0,
      lastCompaction: null,
      status: 'ok',
      autoCompact: true,
      tokens: { messages: stored!.messageTokens, now: stored!.messageTokens },
    });
    // The ceiling is the window less the default output reserve (16384) and safety buffer (500).
    expect(before.tokens.ceiling).toBe(stored!.contextWindow - 16_384 - 500);

    expect((await forceCompact('garden')).json.status).toBe('committed');
    const plan = (await ingest.stores.plans.getCurrent(TENANT_A, 'garden')).plan!;
    const after = (await call(KEY_A, 'GET', '/v1/threads')).json.threads[0];
    expect(after.planVersion).toBe(1);
    expect(after.lastCompaction).toEqual({ planVersion: 1, at: plan.createdAt });
    expect(after.tokens.now).toBe(plan.compactedTokenCount);
    expect(after.tokens.now).toBeLessThan(stored!.messageTokens);

    // Messages appended after the plan count in full.
    await appendTurns(ingest.app, KEY_A, 'garden', 7, 7);
    const grown = await ingest.stores.events.getThread(TENANT_A, 'garden');
    const latest = (await call(KEY_A, 'GET', '/v1/threads')).json.threads[0];
    expect(latest.tokens.now).toBe(plan.compactedTokenCount + grown!.messageTokens - stored!.messageTokens);
  });

  it("lists a thread's branch points: the threads branched from it", async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 4);
    await createConversation(ingest.app, KEY_A, 'other', 2);
    for (const [from, id] of [
      ['u2', 'garden-b1'],
      ['a3', 'garden-b2'],
    ] as const) {
      const branched = await call(KEY_A, 'POST', '/v1/threads/garden/branch', {
        fromMessageId: from,
        newThreadId: id,
      });
      expect(branched.status).toBe(201);
    }
    await call(KEY_A, 'POST', '/v1/threads/other/branch', { fromMessageId: 'u1', newThreadId: 'other-b1' });
    const branches = await call(KEY_A, 'GET', '/v1/threads?branchedFrom=garden');
    expect(
      branches.json.threads.map((row: { threadId: string; branchedFrom: unknown }) => [
        row.threadId,
        row.branchedFrom,
      ]),
    ).toEqual([
      ['garden-b1', { sourceThreadId: 'garden', fromMessageId: 'u2' }],
      ['garden-b2', { sourceThreadId: 'garden', fromMessageId: 'a3' }],
    ]);
    expect((await call(KEY_B, 'GET', '/v1/threads?branchedFrom=garden')).json.threads).toEqual([]);
  });

  it('answers 401 without a key and 400 for a bad limit, in the error envelope', async () => {
    const anonymous = await call(null, 'GET', '/v1/threads');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.code).toBe('unauthorized');
    const bad = await call(KEY_A, 'GET', '/v1/threads?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'validation' });
    expect(bad.json.error.issues[0].path).toContain('limit');
  });
});

describe('GET /v1/threads/:id/lifecycle', () => {
  it('pages the lifecycle log with indexes, and hides it from another tenant', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 6);
    await forceCompact('garden');
    const stored = await ingest.stores.lifecycle.list(TENANT_A, 'garden');
    expect(stored.length).toBeGreaterThan(2);

    const first = await call(KEY_A, 'GET', '/v1/threads/garden/lifecycle?limit=2');
    expect(first.status).toBe(200);
    expect(first.json.total).toBe(stored.length);
    expect(first.json.events).toEqual(
      stored.slice(0, 2).map((event, offset) => ({ index: offset + 1, ...event })),
    );
    expect(first.json.nextIndex).toBe(3);
    const rest = await call(KEY_A, 'GET', `/v1/threads/garden/lifecycle?fromIndex=3&limit=1000`);
    expect(rest.json.events.map((event: { index: number }) => event.index)).toEqual(
      stored.slice(2).map((_, offset) => offset + 3),
    );
    expect(rest.json.nextIndex).toBeNull();
    // The planner's last event, then the engine's word that the plan was committed (ADR-0183).
    expect(rest.json.events.slice(-2).map((event: { name: string }) => event.name)).toEqual([
      'compaction_completed',
      'compaction_committed',
    ]);

    const stranger = await call(KEY_B, 'GET', '/v1/threads/garden/lifecycle');
    expect(stranger.status).toBe(404);
    expect(stranger.json.error.code).toBe('not_found');
  });
});

/** Read server-sent events from a streaming fetch until `count` lifecycle events arrived. */
async function readEvents(response: Response, count: number, timeoutMs = 10_000) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id: string; data: Record<string, unknown> }> = [];
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${events.length} of ${count} events arrived`);
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((line) => !line.startsWith(':') && line.includes(': '))
          .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
      );
      if (fields.event === 'lifecycle')
        events.push({ id: fields.id ?? '', data: JSON.parse(fields.data ?? 'null') });
      end = buffer.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return events;
}

describe('GET /v1/threads/:id/lifecycle/stream', () => {
  it('sends events appended after connecting, live, and resumes after Last-Event-ID', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 6);
    await call(KEY_A, 'POST', '/v1/threads/garden/compact', {});
    const earlier = (await ingest.stores.lifecycle.list(TENANT_A, 'garden')).length;

    const controller = new AbortController();
    const live = await fetch(`${base}/v1/threads/garden/lifecycle/stream`, {
      headers: { authorization: `Bearer ${KEY_A}` },
      signal: controller.signal,
    });
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toContain('text/event-stream');
    const arriving = readEvents(live, 1);
    await forceCompact('garden');
    const [first] = await arriving;
    expect(first!.id).toBe(String(earlier + 1));
    expect(first!.data).toMatchObject({
      index: earlier + 1,
      name: 'compaction_check_started',
      threadId: 'garden',
    });
    controller.abort();

    const all = await ingest.stores.lifecycle.list(TENANT_A, 'garden');
    const resumed = await fetch(`${base}/v1/threads/garden/lifecycle/stream`, {
      headers: { authorization: `Bearer ${KEY_A}`, 'last-event-id': String(all.length - 1) },
    });
    const [last] = await readEvents(resumed, 1);
    expect(last!.data).toEqual({ index: all.length, ...all.at(-1) });
  });

  it('still streams from a lifecycle log that cannot notify, by re-reading it', async () => {
    const log = ingest.stores.lifecycle;
    const app = buildIngestApp({
      ...ingest.dependencies,
      stores: { ...ingest.stores, lifecycle: { append: log.append.bind(log), list: log.list.bind(log) } },
    });
    try {
      const { host, port } = await listenOnLoopback(app);
      await createConversation(ingest.app, KEY_A, 'garden', 6);
      const live = await fetch(`http://${host}:${port}/v1/threads/garden/lifecycle/stream`, {
        headers: { authorization: `Bearer ${KEY_A}` },
      });
      const arriving = readEvents(live, 1);
      await forceCompact('garden');
      const [first] = await arriving;
      expect(first!.data).toMatchObject({ index: 1, name: 'compaction_check_started' });
    } finally {
      await app.close();
    }
  });

  it("refuses another tenant's thread with 404 and a missing key with 401", async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 2);
    expect((await call(KEY_B, 'GET', '/v1/threads/garden/lifecycle/stream')).status).toBe(404);
    expect((await call(null, 'GET', '/v1/threads/garden/lifecycle/stream')).status).toBe(401);
  });
});

describe('GET /v1/threads/:id/plans/:version/diff', () => {
  it('names the spans whose action changed against the previous version', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 6);
    await forceCompact('garden');
    const plan = (await ingest.stores.plans.getCurrent(TENANT_A, 'garden')).plan!;
    const compacted = [
      ...plan.summarizations,
      ...plan.externalizations,
      ...plan.clearings,
      ...plan.drops,
    ].flatMap((record) => record.span.messageIds);
    expect(compacted.length).toBeGreaterThan(0);

    const diff = await call(KEY_A, 'GET', '/v1/threads/garden/plans/1/diff');
    expect(diff.status).toBe(200);
    expect(diff.json).toMatchObject({ version: 1, previousVersion: 0, previous: null });
    const changed = diff.json.changes.flatMap((span: { messageIds: string[] }) => span.messageIds);
    expect(new Set(changed)).toEqual(new Set(compacted));
    for (const span of diff.json.changes) expect(span.before).toBe('include');
    expect(diff.json.compaction).toMatchObject({ name: 'compaction_completed', at: plan.createdAt });
  });

  it('answers 404 for a version never committed or another tenant, 400 for a bad version', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 3);
    expect((await call(KEY_A, 'GET', '/v1/threads/garden/plans/1/diff')).status).toBe(404);
    await forceCompact('garden');
    expect((await call(KEY_B, 'GET', '/v1/threads/garden/plans/1/diff')).status).toBe(404);
    const bad = await call(KEY_A, 'GET', '/v1/threads/garden/plans/0/diff');
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('validation');
    expect((await call(KEY_A, 'GET', '/v1/threads/garden/plans/x/diff')).status).toBe(400);
  });
});

describe('PATCH /v1/threads/:id/policy', () => {
  it('switches auto-compaction off, and the engine then leaves an over-target thread alone until asked', async () => {
    // A small window that forty turns overflow, so an automatic check would compact.
    const created = await call(KEY_A, 'POST', '/v1/threads', {
      threadId: 'tight',
      model: 'claude-sonnet-4-5',
      contextWindow: 4_000,
      policy: { keepRecentTurns: 1, keepRecentTokens: 0, clearAtLeastTokens: 10, outputReserveTokens: 2_500 },
    });
    expect(created.status).toBe(201);
    await appendTurns(ingest.app, KEY_A, 'tight', 1, 24);
    await appendTurns(ingest.app, KEY_A, 'tight', 25, 40);

    const patched = await call(KEY_A, 'PATCH', '/v1/threads/tight/policy', { autoCompact: false });
    expect(patched.status).toBe(200);
    expect(patched.json.policy).toMatchObject({ autoCompact: false, keepRecentTurns: 1 });
    expect(patched.headers.get('etag')).toBe(`"${patched.json.version}"`);
    expect((await call(KEY_A, 'GET', '/v1/threads/tight')).json.policy.autoCompact).toBe(false);

    const engine = createCompactionEngine({
      events: ingest.stores.events,
      plans: ingest.stores.plans,
      lifecycle: ingest.stores.lifecycle,
      summarizer: createExtractiveSummarizer(),
      clock: { now: () => new Date('2025-06-01T00:00:00.000Z') },
    });
    const automatic = await engine.check(TENANT_A, 'tight');
    expect(automatic.trigger.fire).toBe(true);
    expect(automatic.commit.status).toBe('not_needed');
    expect((await ingest.stores.plans.getCurrent(TENANT_A, 'tight')).version).toBe(0);
    // Manual compaction still runs.
    expect((await call(KEY_A, 'POST', '/v1/threads/tight/compact', {})).json.status).toBe('committed');

    const back = await call(KEY_A, 'PATCH', '/v1/threads/tight/policy', { autoCompact: true });
    expect(back.json.policy.autoCompact).toBe(true);
    await appendTurns(ingest.app, KEY_A, 'tight', 41, 64);
    expect((await engine.check(TENANT_A, 'tight')).commit.status).toBe('committed');
  });

  it('carries policy changes made before the branch point into a branch, and not later ones', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 2);
    await call(KEY_A, 'PATCH', '/v1/threads/garden/policy', { autoCompact: false, keepRecentTurns: 2 });
    await appendTurns(ingest.app, KEY_A, 'garden', 3, 4);
    await call(KEY_A, 'PATCH', '/v1/threads/garden/policy', { keepRecentTurns: 7 });
    const branched = await call(KEY_A, 'POST', '/v1/threads/garden/branch', {
      fromMessageId: 'a3',
      newThreadId: 'garden-b',
    });
    expect(branched.status).toBe(201);
    const branch = (await call(KEY_A, 'GET', '/v1/threads/garden-b')).json;
    expect(branch.policy).toMatchObject({ autoCompact: false, keepRecentTurns: 2 });
    expect(branch.messageCount).toBe(6);
    expect((await call(KEY_A, 'GET', '/v1/threads/garden')).json.policy.keepRecentTurns).toBe(7);
  });

  it('rejects empty, unknown and immutable fields, a stale If-Match, and another tenant', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 2);
    const empty = await call(KEY_A, 'PATCH', '/v1/threads/garden/policy', {});
    expect(empty.status).toBe(400);
    expect(empty.json.error.code).toBe('validation');
    expect(
      (await call(KEY_A, 'PATCH', '/v1/threads/garden/policy', { mode: { kind: 'ladder' } })).status,
    ).toBe(400);
    expect((await call(KEY_A, 'PATCH', '/v1/threads/garden/policy', { autoCompact: 'off' })).status).toBe(
      400,
    );
    const stale = await call(
      KEY_A,
      'PATCH',
      '/v1/threads/garden/policy',
      { autoCompact: false },
      { 'if-match': '"1"' },
    );
    expect(stale.status).toBe(409);
    expect((await call(KEY_B, 'PATCH', '/v1/threads/garden/policy', { autoCompact: false })).status).toBe(
      404,
    );
    expect((await call(KEY_A, 'GET', '/v1/threads/garden')).json.policy.autoCompact).toBe(true);
  });
});

describe('OpenAPI', () => {
  it('documents every route behind the inspector', async () => {
    const document = (await call(null, 'GET', '/openapi.json')).json;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/threads',
        '/v1/threads/{id}/lifecycle',
        '/v1/threads/{id}/lifecycle/stream',
        '/v1/threads/{id}/plans/{version}/diff',
        '/v1/threads/{id}/policy',
      ]),
    );
    expect(document.paths['/v1/threads/{id}/policy'].patch.requestBody).toBeDefined();
  });
});

describe('the typed client', () => {
  it('lists threads, pages lifecycle events, reads a plan diff and patches the policy', async () => {
    const client = createCompactorClient({ baseUrl: base, apiKey: KEY_A });
    await createConversation(ingest.app, KEY_A, 'garden', 6);
    await forceCompact('garden');
    const page = await client.listThreads({ prefix: 'gar' });
    expect(page.threads.map((row) => [row.threadId, row.planVersion])).toEqual([['garden', 1]]);
    const lifecycle = await client.listLifecycle('garden', { limit: 1 });
    expect(lifecycle.events[0]!.index).toBe(1);
    expect(lifecycle.nextIndex).toBe(2);
    const diff = await client.getPlanDiff('garden', 1);
    expect(diff.changedMessages).toBeGreaterThan(0);
    const thread = await client.getThread('garden');
    const patched = await client.updatePolicy(
      'garden',
      { autoCompact: false },
      { expectedVersion: thread.version },
    );
    expect(patched.policy.autoCompact).toBe(false);
    expect(patched.version).toBe(thread.version + 1);
  });
});
