import { fixedClock, foldThread } from '@compactor/core';
import { createCompactionEngine } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendTurns, createThread, KEY_A, startTestIngest, TENANT_A, type TestIngest } from './support.js';

/** `POST /v1/threads` with `policy: { preset }` (ADR-0106). */
let ingest: TestIngest;
beforeEach(async () => {
  ingest = await startTestIngest();
});
afterEach(async () => {
  await ingest.cleanup();
});

describe('POST /v1/threads with a policy preset', () => {
  it('stores the expanded preset, explicit fields overriding it, and the engine compacts by it', async () => {
    const created = await createThread(ingest.app, KEY_A, {
      threadId: 'preset',
      model: 'claude-sonnet-4-5',
      policy: { preset: 'seed-004-sliding', mode: { kind: 'sliding-window', maxEvents: 6 } },
    });
    expect(created.statusCode).toBe(201);
    await appendTurns(ingest.app, KEY_A, 'preset', 1, 25);
    const thread = foldThread(await ingest.stores.events.readAll(TENANT_A, 'preset'));
    expect(thread.policy.preset).toBe('seed-004-sliding');
    expect(thread.policy.trigger).toEqual({ kind: 'turns', maxTurns: 20 });
    expect(thread.policy.mode).toEqual({ kind: 'sliding-window', maxEvents: 6 });

    const engine = createCompactionEngine({
      ...ingest.stores,
      summarizer: createExtractiveSummarizer(),
      clock: fixedClock('2025-06-01T00:00:00.000Z'),
    });
    const result = await engine.check(TENANT_A, 'preset');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    const { plan } = await ingest.stores.plans.getCurrent(TENANT_A, 'preset');
    expect(plan!.drops.flatMap((drop) => drop.span.messageIds)).toHaveLength(50 - 6);
  });

  it('rejects an unknown preset with 400', async () => {
    const created = await createThread(ingest.app, KEY_A, {
      threadId: 'unknown',
      model: 'claude-sonnet-4-5',
      policy: { preset: 'seed-999' },
    });
    expect(created.statusCode).toBe(400);
  });
});
