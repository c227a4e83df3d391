/**
 * The default policy wired through the HTTP API (ADR-0190–0192): plan commits in the thread's log, rehydration
 * state kept server-side in the lifecycle log (cooldowns across requests, events in the lifecycle
 * route, the worker told through the same log), and the system prompt and tools registered by
 * POST /prompt for the worker's target.
 */
import { plansFromLog, type StoredEvent } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  startTestIngest,
  TENANT_A,
  type TestIngest,
  toolExchange,
} from './support.js';

// Real stores and the real tokenizer on two shared cores: allow for load, never assert on time.
vi.setConfig({ testTimeout: 60_000 });

let ingest: TestIngest;
beforeEach(async () => {
  ingest = await startTestIngest();
});
afterEach(async () => {
  await ingest.cleanup();
});

const post = (url: string, payload?: unknown) =>
  ingest.app.inject({ method: 'POST', url, headers: bearer(KEY_A), ...(payload ? { payload } : {}) });
const get = (url: string) => ingest.app.inject({ method: 'GET', url, headers: bearer(KEY_A) });

async function allEvents(threadId: string): Promise<StoredEvent[]> {
  const response = await get(`/v1/threads/${threadId}/events?limit=1000`);
  expect(response.statusCode).toBe(200);
  return response.json().events;
}

async function lifecycle(
  threadId: string,
): Promise<Array<{ name: string; details: Record<string, unknown> }>> {
  const response = await get(`/v1/threads/${threadId}/lifecycle?limit=1000`);
  expect(response.statusCode).toBe(200);
  return response.json().events;
}

/** Six turns that each read a large file; forced compaction externalizes the old reads. */
async function readingThread(threadId: string) {
  const created = await createThread(ingest.app, KEY_A, {
    threadId,
    model: 'claude-sonnet-4-5',
    contextWindow: 40_000,
    policy: {
      keepRecentTurns: 1,
      keepRecentTokens: 0,
      clearAtLeastTokens: 10,
      externalizeThresholdTokens: 200,
    },
  });
  expect(created.statusCode).toBe(201);
  const events = [];
  for (let turn = 1; turn <= 6; turn += 1) {
    events.push(
      messageEvent('user', `Turn ${turn}: read file ${turn}`),
      ...toolExchange(`call_${turn}`, 'read_file', `const value${turn} = ${turn};\n`.repeat(120)),
      messageEvent('assistant', `File ${turn} read.`),
    );
  }
  expect((await appendEvents(ingest.app, KEY_A, threadId, events)).statusCode).toBe(201);
  const compacted = await post(`/v1/threads/${threadId}/compact`, { force: true });
  expect(compacted.json().status).toBe('committed');
  const plan = (await get(`/v1/threads/${threadId}/plan`)).json();
  const artifactIds: string[] = plan.current.plan.externalizations.map(
    (record: { artifactId: string }) => record.artifactId,
  );
  expect(artifactIds.length).toBeGreaterThan(0);
  return { artifactIds, plan };
}

describe('plan commits in the log, over HTTP (ADR-0190)', () => {
  it('GET /events shows plan.committed with the plan; the log rebuilds GET /plan', async () => {
    const { plan } = await readingThread('logged');
    const events = await allEvents('logged');
    const committed = events.filter((event) => event.type === 'plan.committed');
    expect(committed).toHaveLength(1);
    expect(plansFromLog(events).get(1)).toEqual(plan.current.plan);
    // The thread version (ETag) covers the logged commit, so If-Match appends see it.
    const thread = await get('/v1/threads/logged');
    expect(thread.json().version).toBe(events.at(-1)!.seq);
    // Clients may not write service events.
    const forged = await appendEvents(ingest.app, KEY_A, 'logged', [
      { eventId: 'forged', type: 'context.registered', system: 'x', tools: [] },
    ]);
    expect(forged.statusCode).toBe(400);
  });
});

describe('rehydration kept server-side (ADR-0191)', () => {
  it('records rehydrations once per turn, blocks a repeat in the cooldown across requests, and tells the worker', async () => {
    const { artifactIds } = await readingThread('rehydrate');
    const artifactId = artifactIds[0]!;
    await appendEvents(ingest.app, KEY_A, 'rehydrate', [
      messageEvent('user', 'What did the first file define?'),
      messageEvent('assistant', `Let me look at artifact:${artifactId} again.`),
    ]);
    const first = await post('/v1/threads/rehydrate/prompt', {});
    expect(first.statusCode).toBe(200);
    const performed = first.json().report.rehydration.performed;
    expect(performed.map((event: { artifactId: string }) => event.artifactId)).toEqual([artifactId]);
    const turn = first.json().report.turn;
    // A second render of the same turn shows it again but records nothing new.
    const again = await post('/v1/threads/rehydrate/prompt', {});
    expect(again.json().report.rehydration.performed).toHaveLength(1);
    const rehydrated = (await lifecycle('rehydrate')).filter(
      (event) => event.name === 'compaction_rehydrated',
    );
    expect(rehydrated).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ artifactId, turn, trigger: 'message' }) }),
    ]);

    // The worker's check reads the same log: this turn rehydrated, so no externalize or drop. A twin
    // thread in the same state that rendered no rehydration does externalize.
    const { artifactIds: twinIds } = await readingThread('twin');
    await appendEvents(ingest.app, KEY_A, 'twin', [
      messageEvent('user', 'What did the first file define?'),
      messageEvent('assistant', `Let me look at artifact:${twinIds[0]} again.`),
    ]);
    for (const threadId of ['rehydrate', 'twin']) {
      await appendEvents(ingest.app, KEY_A, threadId, [
        ...toolExchange(`call_more_${threadId}`, 'read_file', 'const more = 1;\n'.repeat(2500)),
      ]);
    }
    const check = await ingest.dependencies.engine.compactThread(TENANT_A, 'rehydrate', { force: true });
    expect(check.planner).not.toBeNull();
    expect(check.planner!.rungsUsed).not.toContain('externalize');
    expect(check.planner!.rungsUsed).not.toContain('drop');
    const twin = await ingest.dependencies.engine.compactThread(TENANT_A, 'twin', { force: true });
    expect(twin.planner!.rungsUsed).toContain('externalize');

    // Next turn, the agent names it again: still in its cooldown (2 turns), so blocked and recorded.
    await appendEvents(ingest.app, KEY_A, 'rehydrate', [
      messageEvent('user', 'And again?'),
      messageEvent('assistant', `Reading artifact:${artifactId} once more.`),
    ]);
    const next = await post('/v1/threads/rehydrate/prompt', {});
    expect(next.json().report.turn).toBe(turn + 1);
    expect(next.json().report.rehydration.performed).toEqual([]);
    const blocked = (await lifecycle('rehydrate')).filter(
      (event) => event.name === 'compaction_rehydration_blocked',
    );
    expect(blocked).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ artifactId, reason: 'cooldown' }) }),
    ]);
  });

  it('survives a restart: a new ingest over the same data directory keeps the cooldown', async () => {
    const { artifactIds } = await readingThread('restart');
    const artifactId = artifactIds[0]!;
    await appendEvents(ingest.app, KEY_A, 'restart', [
      messageEvent('user', 'Show me file one.'),
      messageEvent('assistant', `Opening artifact:${artifactId}.`),
    ]);
    expect((await post('/v1/threads/restart/prompt', {})).json().report.rehydration.performed).toHaveLength(
      1,
    );
    await appendEvents(ingest.app, KEY_A, 'restart', [
      messageEvent('user', 'Once more.'),
      messageEvent('assistant', `Opening artifact:${artifactId} again.`),
    ]);
    const dataDir = ingest.dataDir;
    await ingest.app.close();
    await ingest.stores.close();
    ingest = await startTestIngest({ dataDir });
    const after = await post('/v1/threads/restart/prompt', {});
    expect(after.json().report.rehydration.performed).toEqual([]);
    expect(after.json().report.rehydration.blocked).toEqual([
      expect.objectContaining({ artifactId, reason: 'cooldown' }),
    ]);
  });

  it('records compaction_retrieved when recall brings compacted messages back (ADR-0111)', async () => {
    await readingThread('recall');
    const asked = await post('/v1/threads/recall/prompt', { query: 'value1 const' });
    const recalled = asked.json().report.recall.recalled;
    expect(recalled.length).toBeGreaterThan(0);
    const events = (await lifecycle('recall')).filter((event) => event.name === 'compaction_retrieved');
    expect(events).toHaveLength(1);
    expect(events[0]!.details.messageIds).toEqual(
      recalled.map((hit: { messageId: string }) => hit.messageId),
    );
    // The same recall again in the same turn is not recorded twice.
    await post('/v1/threads/recall/prompt', { query: 'value1 const' });
    expect((await lifecycle('recall')).filter((event) => event.name === 'compaction_retrieved')).toHaveLength(
      1,
    );
  });
});

describe('system prompt and tools registered on the thread (ADR-0192)', () => {
  it('POST /prompt with register appends context.registered once per change, and the worker plans for it', async () => {
    await readingThread('registered');
    const system = 'You are a careful reviewer. Quote the file before you judge it. '.repeat(300);
    const tools = [{ name: 'grep', description: 'Search files', inputSchema: { type: 'object' } }];
    const before = await ingest.dependencies.engine.compactThread(TENANT_A, 'registered', { force: true });
    for (let round = 0; round < 2; round += 1) {
      expect(
        (await post('/v1/threads/registered/prompt', { system, tools, register: true })).statusCode,
      ).toBe(200);
    }
    const registered = (await allEvents('registered')).filter((event) => event.type === 'context.registered');
    expect(registered).toHaveLength(1);
    expect(registered[0]).toMatchObject({ system, tools });
    const after = await ingest.dependencies.engine.compactThread(TENANT_A, 'registered', { force: true });
    expect(before.planner!.targetTokens - after.planner!.targetTokens).toBeGreaterThan(3000);
    // A changed registration is appended again.
    await post('/v1/threads/registered/prompt', { system: 'Be brief.', tools, register: true });
    expect(
      (await allEvents('registered')).filter((event) => event.type === 'context.registered'),
    ).toHaveLength(2);
  });
});
