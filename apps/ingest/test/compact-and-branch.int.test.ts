import type { CompactionPlan, StoredEvent } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendTurns,
  bearer,
  createConversation,
  KEY_A,
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

async function post(url: string, payload?: unknown) {
  return ingest.app.inject({ method: 'POST', url, headers: bearer(KEY_A), ...(payload ? { payload } : {}) });
}
async function get(url: string) {
  return ingest.app.inject({ method: 'GET', url, headers: bearer(KEY_A) });
}

function summarizedIds(plan: CompactionPlan | null): string[] {
  return (plan?.summarizations ?? []).flatMap((record) => record.span.messageIds);
}

describe('POST /v1/threads/:id/compact and GET /v1/threads/:id/plan', () => {
  it('answers not_needed for a small thread, then commits a plan when forced, visible at once', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 5);
    const empty = await get('/v1/threads/garden/plan');
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ current: { version: 0, plan: null }, history: [] });

    const unforced = await post('/v1/threads/garden/compact');
    expect(unforced.statusCode).toBe(200);
    expect(unforced.json()).toMatchObject({ status: 'not_needed', planVersion: 0 });

    const forced = await post('/v1/threads/garden/compact', {
      force: true,
      instructions: 'keep the soil facts',
    });
    expect(forced.statusCode).toBe(200);
    const summary = forced.json();
    expect(summary).toMatchObject({
      status: 'committed',
      planVersionBefore: 0,
      planVersion: 1,
      threadVersion: 11,
    });
    expect(summary.tokensAfter).toBeLessThan(summary.tokensBefore);

    const plan = (await get('/v1/threads/garden/plan')).json();
    const stored = await ingest.stores.plans.getCurrent(TENANT_A, 'garden');
    expect(plan.current).toEqual(JSON.parse(JSON.stringify(stored)));
    expect(plan.history.map((entry: { version: number }) => entry.version)).toEqual([1]);
    // The protected tail (the last turn) is never compacted.
    expect(summarizedIds(plan.current.plan)).not.toContain('u5');
    expect(summarizedIds(plan.current.plan)).toContain('a1');
    // The user's own words are kept verbatim (ADR-0110).
    expect(summarizedIds(plan.current.plan)).not.toContain('u1');

    const thread = (await get('/v1/threads/garden')).json();
    expect(thread.planVersion).toBe(1);
    expect(thread.tokens.compacted).toBe(stored.plan!.compactedTokenCount);
  });

  it('recalls compacted turns into the prompt for the query POST /prompt is given (ADR-0111)', async () => {
    await createConversation(ingest.app, KEY_A, 'recalled', 5);
    expect((await post('/v1/threads/recalled/compact', { force: true })).json().status).toBe('committed');
    const asked = await post('/v1/threads/recalled/prompt', { query: 'roses sun drained' });
    expect(asked.statusCode).toBe(200);
    const { tokens, report } = asked.json();
    expect(report.recall.query).toBe('roses sun drained');
    expect(report.recall.recalled.map((hit: { messageId: string }) => hit.messageId)).toContain('a1');
    expect(tokens.recall).toBe(report.recall.tokens);
    expect(tokens.recall).toBeGreaterThan(0);
    const refused = await post('/v1/threads/recalled/prompt', { query: '' });
    expect(refused.statusCode).toBe(400);
  });

  it('offers search_history on POST /prompt and answers its calls from the compacted turns (ADR-0163)', async () => {
    await createConversation(ingest.app, KEY_A, 'searched', 5);
    expect((await post('/v1/threads/searched/compact', { force: true })).json().status).toBe('committed');
    const offered = await post('/v1/threads/searched/prompt', { searchHistoryTool: true });
    expect(offered.statusCode).toBe(200);
    // Compactor's tools in their fixed order, present from the first request (ADR-0141).
    expect(offered.json().report.toolsAdded).toEqual(['read_artifact', 'search_history']);
    expect(offered.json().request.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'read_artifact',
      'search_history',
    ]);
    const answered = await post('/v1/threads/searched/search-history', {
      toolCallId: 'toolu_1',
      input: { query: 'Answer 1 roses drained', top_k: 2 },
    });
    expect(answered.statusCode).toBe(200);
    const { result, hits } = answered.json();
    expect(result).toMatchObject({ type: 'tool_result', toolName: 'search_history', toolCallId: 'toolu_1' });
    expect(result.outcome).toBe('success');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(2);
    expect(result.content).toContain('roses like sun');
    const malformed = await post('/v1/threads/searched/search-history', { toolCallId: 'toolu_2', input: {} });
    expect(malformed.statusCode).toBe(200);
    expect(malformed.json().result.outcome).toBe('failure');
    expect((await post('/v1/threads/searched/search-history', { input: {} })).statusCode).toBe(400);
    expect(
      (await post('/v1/threads/nowhere/search-history', { toolCallId: 'x', input: { query: 'a' } }))
        .statusCode,
    ).toBe(404);
  });

  it('refuses a bad compaction request with field issues', async () => {
    await createConversation(ingest.app, KEY_A, 'garden', 1);
    const response = await post('/v1/threads/garden/compact', { force: 'yes', extra: 1 });
    expect(response.statusCode).toBe(400);
    const paths = response.json().error.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toContain('force');
    expect((await ingest.stores.plans.getCurrent(TENANT_A, 'garden')).version).toBe(0);
  });
});

describe('POST /v1/threads/:id/branch', () => {
  /**
   * Source thread: 5 turns, compaction v1 (basedOnSeq 11, logged as seq 12, ADR-0190), 3 more turns,
   * compaction v2 (basedOnSeq 18, logged as seq 19).
   */
  async function compactedTwice() {
    await createConversation(ingest.app, KEY_A, 'source', 5);
    expect((await post('/v1/threads/source/compact', { force: true })).json().planVersion).toBe(1);
    await appendTurns(ingest.app, KEY_A, 'source', 6, 8);
    expect((await post('/v1/threads/source/compact', { force: true })).json().planVersion).toBe(2);
    const versions = await ingest.stores.plans.listVersions(TENANT_A, 'source');
    expect(versions.map((version) => version.basedOnSeq)).toEqual([11, 18]);
  }

  async function branchEvents(threadId: string): Promise<StoredEvent[]> {
    return ingest.stores.events.readAll(TENANT_A, threadId);
  }

  it('copies the log up to the message, with new event ids and the same message ids', async () => {
    await compactedTwice();
    const response = await post('/v1/threads/source/branch', { fromMessageId: 'u3', newThreadId: 'early' });
    expect(response.statusCode).toBe(201);
    expect(response.headers.etag).toBe('"7"');
    expect(response.json()).toMatchObject({
      threadId: 'early',
      version: 7,
      sourceThreadId: 'source',
      fromMessageId: 'u3',
      sourceVersion: 19,
      created: true,
    });
    const source = await branchEvents('source');
    const copied = await branchEvents('early');
    expect(copied[0]).toMatchObject({
      type: 'thread.created',
      model: source[0]!.type === 'thread.created' ? source[0]!.model : '',
      contextWindow: 200_000,
      policy: { keepRecentTurns: 1, keepRecentTokens: 0, clearAtLeastTokens: 10 },
    });
    expect(copied[1]).toMatchObject({
      type: 'thread.branched',
      sourceThreadId: 'source',
      fromMessageId: 'u3',
      sourceVersion: 19,
    });
    const messages = copied.slice(2);
    expect(
      messages.map((event) => (event.type === 'message.appended' ? event.message.id : event.type)),
    ).toEqual(['u1', 'a1', 'u2', 'a2', 'u3']);
    const sourceEventIds = new Set(source.map((event) => event.eventId));
    for (const [index, event] of messages.entries()) {
      expect(sourceEventIds.has(event.eventId)).toBe(false);
      const original = source[index + 1]!;
      expect(event.type === 'message.appended' && original.type === 'message.appended').toBe(true);
      if (event.type === 'message.appended' && original.type === 'message.appended') {
        expect(event.message).toEqual(original.message);
        expect(event.tokens).toBe(original.tokens);
      }
    }
    const thread = (await get('/v1/threads/early')).json();
    expect(thread.branchedFrom).toEqual({ sourceThreadId: 'source', fromMessageId: 'u3', sourceVersion: 19 });
  });

  it('branching before a compaction undoes it: no plan, every message rendered verbatim', async () => {
    await compactedTwice();
    const response = await post('/v1/threads/source/branch', { fromMessageId: 'u3', newThreadId: 'before' });
    expect(response.json()).toMatchObject({ planVersion: 0, sourcePlanVersion: null });
    expect((await get('/v1/threads/before/plan')).json()).toEqual({
      current: { version: 0, plan: null },
      history: [],
    });
    const prompt = (await get('/v1/threads/before/prompt?provider=anthropic')).json();
    expect(prompt.report.counts).toMatchObject({ included: 5, summarized: 0 });
  });

  it('branching after a compaction keeps it: the latest plan made from no later message', async () => {
    await compactedTwice();
    // u6 is seq 13: after plan 1 (basedOnSeq 11), before plan 2 (basedOnSeq 18).
    const response = await post('/v1/threads/source/branch', { fromMessageId: 'u6', newThreadId: 'after' });
    expect(response.json()).toMatchObject({ planVersion: 1, sourcePlanVersion: 1 });
    const sourcePlan = (await ingest.stores.plans.getVersion(TENANT_A, 'source', 1))!;
    const branchPlan = (await get('/v1/threads/after/plan')).json().current;
    expect(branchPlan.version).toBe(1);
    expect(branchPlan.plan.threadId).toBe('after');
    expect(branchPlan.plan.summarizations).toEqual(sourcePlan.summarizations);
    // Rebased on the branch's own seqs: its copy of a5 (the source's seq 11) is seq 12.
    const copies = await branchEvents('after');
    const a5 = copies.find((event) => event.type === 'message.appended' && event.message.id === 'a5')!;
    expect(branchPlan.plan.basedOnSeq).toBe(a5.seq);
    const prompt = (await get('/v1/threads/after/prompt?provider=anthropic')).json();
    expect(prompt.report).toMatchObject({ planVersion: 1, stale: true, messagesAfterPlan: 1 });
    expect(prompt.report.counts.summarized).toBe(summarizedIds(sourcePlan).length);

    // At the very message a plan was based on, that plan applies too.
    const atPlan = await post('/v1/threads/source/branch', { fromMessageId: 'a8', newThreadId: 'latest' });
    expect(atPlan.json()).toMatchObject({ planVersion: 1, sourcePlanVersion: 2 });
    const latest = (await ingest.stores.plans.getCurrent(TENANT_A, 'latest')).plan!;
    expect(latest.summarizations).toEqual(
      (await ingest.stores.plans.getVersion(TENANT_A, 'source', 2))!.summarizations,
    );
  });

  it('is idempotent for the same newThreadId and refuses a taken one', async () => {
    await compactedTwice();
    const first = await post('/v1/threads/source/branch', { fromMessageId: 'u6', newThreadId: 'again' });
    const retry = await post('/v1/threads/source/branch', { fromMessageId: 'u6', newThreadId: 'again' });
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual({ ...first.json(), created: false });
    expect(await branchEvents('again')).toHaveLength(first.json().version);
    expect((await ingest.stores.plans.listVersions(TENANT_A, 'again')).length).toBe(1);

    const clash = await post('/v1/threads/source/branch', { fromMessageId: 'u2', newThreadId: 'again' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('concurrency');
  });

  it('answers 400 for a message the source does not have, and 404 for an unknown source', async () => {
    await createConversation(ingest.app, KEY_A, 'source', 2);
    const missing = await post('/v1/threads/source/branch', { fromMessageId: 'nope', newThreadId: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.issues).toEqual([expect.objectContaining({ path: 'fromMessageId' })]);
    const noSource = await post('/v1/threads/ghost/branch', { fromMessageId: 'u1', newThreadId: 'y' });
    expect(noSource.statusCode).toBe(404);
    const badId = await post('/v1/threads/source/branch', { fromMessageId: 'u1', newThreadId: 'has space' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json().error.issues[0].path).toBe('newThreadId');
    for (const id of ['x', 'y', 'has space']) {
      expect(await ingest.stores.events.getThread(TENANT_A, id)).toBeNull();
    }
  });
});
