import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendTurns, bearer, createThread, KEY_A, startTestIngest, type TestIngest } from './support.js';

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
