import { CompactorApiError, type CompactorClient, createCompactorClient } from '@compactor/client';
import { fixedClock } from '@compactor/core';
import { createCompactionEngine } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendTurns,
  bearer,
  createThread,
  KEY_A,
  KEY_B,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

/** Snapshots for delegated agents over HTTP (ADR-0180), through @compactor/client on a real socket. */
let ingest: TestIngest;
let client: CompactorClient;
let baseUrl: string;
beforeEach(async () => {
  ingest = await startTestIngest();
  baseUrl = await ingest.app.listen({ port: 0, host: '127.0.0.1' });
  client = createCompactorClient({ baseUrl, apiKey: KEY_A, retryDelayMs: 5 });
});
afterEach(async () => {
  await ingest.cleanup();
});

const SYSTEM = 'You are a delegated sub-agent.';

async function compactedThread() {
  await createThread(ingest.app, KEY_A, {
    threadId: 'parent',
    model: 'claude-sonnet-4-5',
    policy: { preset: 'seed-004-sliding' },
  });
  await appendTurns(ingest.app, KEY_A, 'parent', 1, 22);
  const engine = createCompactionEngine({
    ...ingest.stores,
    summarizer: createExtractiveSummarizer(),
    clock: fixedClock('2025-06-01T00:00:00.000Z'),
  });
  expect((await engine.check(TENANT_A, 'parent')).commit).toEqual({ status: 'committed', version: 1 });
  return engine;
}

describe('POST /v1/threads/:id/snapshots and prompt?snapshot=', () => {
  it('three delegated renders across a concurrent append and commit are byte-identical', async () => {
    const engine = await compactedThread();
    const snapshot = await client.createSnapshot('parent');
    // 45 events appended, then the commit's plan.committed event (ADR-0190).
    expect(snapshot).toEqual({
      snapshotId: expect.stringMatching(/^snap_/),
      threadVersion: 46,
      planVersion: 1,
    });
    const delegated = () => client.renderPrompt('parent', { system: SYSTEM, snapshot: snapshot.snapshotId });
    const first = await delegated();
    await appendTurns(ingest.app, KEY_A, 'parent', 23, 45);
    const [second, committed] = await Promise.all([delegated(), engine.check(TENANT_A, 'parent')]);
    expect(committed.commit).toEqual({ status: 'committed', version: 2 });
    const third = await delegated();
    expect(JSON.stringify(second.request)).toBe(JSON.stringify(first.request));
    expect(JSON.stringify(third.request)).toBe(JSON.stringify(first.request));
    // GET with the same pins renders the same bytes; the live render has moved on.
    const viaGet = await ingest.app.inject({
      method: 'GET',
      url: `/v1/threads/parent/prompt?system=${encodeURIComponent(SYSTEM)}&planVersion=1&threadVersion=46`,
      headers: bearer(KEY_A),
    });
    expect(viaGet.statusCode).toBe(200);
    expect(JSON.stringify(viaGet.json().request)).toBe(JSON.stringify(first.request));
    const live = await client.renderPrompt('parent', { system: SYSTEM });
    expect(JSON.stringify(live.request)).not.toBe(JSON.stringify(first.request));
  });

  it('GET ?planVersion=N renders that plan over the current thread version', async () => {
    const engine = await compactedThread();
    await appendTurns(ingest.app, KEY_A, 'parent', 23, 45);
    await engine.check(TENANT_A, 'parent');
    const byVersion = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/parent/prompt?planVersion=1',
      headers: bearer(KEY_A),
    });
    const current = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/parent/prompt',
      headers: bearer(KEY_A),
    });
    expect(byVersion.statusCode).toBe(200);
    expect(byVersion.body).not.toBe(current.body);
    // Plan 1 kept turns 18–22 of 22 verbatim; the 23 turns since are all shown.
    expect(byVersion.body).toContain('Question 23:');
  });

  it('answers 400 for a malformed id or both pins, 404 for a version never reached, and hides other tenants', async () => {
    await compactedThread();
    const status = async (query: string, key = KEY_A) =>
      (
        await ingest.app.inject({
          method: 'GET',
          url: `/v1/threads/parent/prompt?${query}`,
          headers: bearer(key),
        })
      ).statusCode;
    expect(await status('snapshot=nope')).toBe(400);
    expect(await status('snapshot=snap_45_1&planVersion=1')).toBe(400);
    expect(await status('threadVersion=3')).toBe(400);
    expect(await status('snapshot=snap_99_1')).toBe(404);
    expect(await status('planVersion=7')).toBe(404);
    expect(await status('snapshot=snap_45_1', KEY_B)).toBe(404);
    const other = createCompactorClient({ baseUrl: baseUrl, apiKey: KEY_B, retryDelayMs: 5 });
    await expect(other.createSnapshot('parent')).rejects.toBeInstanceOf(CompactorApiError);
  });
});
