import { createCompactorClient } from '@compactor/client';
import { fixedClock } from '@compactor/core';
import { createCompactionEngine } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendTurns,
  bearer,
  createThread,
  KEY_A,
  startTestIngest,
  TENANT_A,
  type TestIngest,
} from './support.js';

/** Seed requirements through the HTTP API (docs/SEEDS.md). */
let ingest: TestIngest;
beforeEach(async () => {
  ingest = await startTestIngest();
});
afterEach(async () => {
  await ingest.cleanup();
});

const post = (url: string, payload?: unknown) =>
  ingest.app.inject({ method: 'POST', url, headers: bearer(KEY_A), ...(payload ? { payload } : {}) });

describe('seed 004: POST /v1/threads/:id/compact returns the result', () => {
  it('archived and kept messages and the tokens saved', async () => {
    await createThread(ingest.app, KEY_A, {
      threadId: 'seed',
      model: 'claude-sonnet-4-5',
      policy: { preset: 'seed-004-sliding' },
    });
    await appendTurns(ingest.app, KEY_A, 'seed', 1, 25);
    const response = await post('/v1/threads/seed/compact');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.status).toBe('committed');
    const ids = Array.from({ length: 25 }, (_, index) => [`u${index + 1}`, `a${index + 1}`]).flat();
    expect(body.archivedMessageIds).toEqual(ids.slice(0, 40));
    expect(body.keptMessageIds).toEqual(ids.slice(40));
    expect(body.tokensSaved).toBe(body.tokensBefore - body.tokensAfter);
    expect(body.tokensSaved).toBeGreaterThan(0);
    // Nothing new to compact: nothing archived, nothing saved.
    const again = (await post('/v1/threads/seed/compact')).json();
    expect(again.status).toBe('not_needed');
    expect([again.archivedMessageIds, again.keptMessageIds, again.tokensSaved]).toEqual([[], [], 0]);
  });
});

describe('pi: /autocompact after creation, and the user is told a compaction happened', () => {
  it('PATCH autoCompact off stops the trigger, on lets it act; the commit is a lifecycle event the client reads', async () => {
    const baseUrl = await ingest.app.listen({ port: 0, host: '127.0.0.1' });
    const client = createCompactorClient({ baseUrl, apiKey: KEY_A, retryDelayMs: 5 });
    await client.createThread({
      threadId: 'pi',
      model: 'claude-sonnet-4-5',
      policy: { preset: 'seed-004-sliding' },
    });
    await appendTurns(ingest.app, KEY_A, 'pi', 1, 25);
    const engine = createCompactionEngine({
      ...ingest.stores,
      summarizer: createExtractiveSummarizer(),
      clock: fixedClock('2025-06-01T00:00:00.000Z'),
    });
    await client.updatePolicy('pi', { autoCompact: false });
    const off = await engine.check(TENANT_A, 'pi');
    expect(off.commit).toEqual({ status: 'not_needed' });
    expect(off.planner?.status).toBe('disabled');
    expect((await client.listLifecycle('pi')).events.map((event) => event.name)).not.toContain(
      'compaction_committed',
    );
    await client.updatePolicy('pi', { autoCompact: true });
    const on = await engine.check(TENANT_A, 'pi');
    expect(on.commit).toEqual({ status: 'committed', version: 1 });
    const told = (await client.listLifecycle('pi')).events.filter(
      (event) => event.name === 'compaction_committed',
    );
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      tokensBefore: on.planner!.tokensBefore,
      tokensAfter: on.planner!.tokensAfter,
      strategy: 'sliding-window',
      details: { planVersion: 1, trigger: 'automatic', archivedMessages: 40, keptMessages: 10 },
    });
  });
});

describe('seed 003: a 128k fallback window for unknown models, when the user opts in', () => {
  it('creates the thread with 128,000 tokens and o200k_base; without the opt-in it is a 422', async () => {
    const refused = await createThread(ingest.app, KEY_A, { threadId: 'refused', model: 'acme-llm-7' });
    expect(refused.statusCode).toBe(422);
    const created = await createThread(ingest.app, KEY_A, {
      threadId: 'fallback',
      model: 'acme-llm-7',
      unknownModelFallback: true,
      policy: { preset: 'seed-003' },
    });
    expect(created.statusCode).toBe(201);
    const thread = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/fallback',
      headers: bearer(KEY_A),
    });
    expect(thread.json()).toMatchObject({
      model: 'acme-llm-7',
      contextWindow: 128_000,
      maxOutputTokens: 4_096,
    });
    // Its seed-003 threshold is the 128k one, and the thread renders with the fallback tokenizer.
    await appendTurns(ingest.app, KEY_A, 'fallback', 1, 2);
    const prompt = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/fallback/prompt',
      headers: bearer(KEY_A),
    });
    expect(prompt.statusCode).toBe(200);
    // Numbers given still win over the fallback's.
    const explicit = await createThread(ingest.app, KEY_A, {
      threadId: 'explicit',
      model: 'acme-llm-7',
      unknownModelFallback: true,
      contextWindow: 64_000,
    });
    expect(explicit.statusCode).toBe(201);
    const explicitThread = await ingest.app.inject({
      method: 'GET',
      url: '/v1/threads/explicit',
      headers: bearer(KEY_A),
    });
    expect(explicitThread.json().contextWindow).toBe(64_000);
  });
});
