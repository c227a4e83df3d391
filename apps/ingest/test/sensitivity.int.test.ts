import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACT_PERMISSION_CONFIDENTIAL } from '@compactor/core';
import { createRuntime, loadRuntimeConfig } from '@compactor/runtime';
import { SUMMARY_TOOL_NAME } from '@compactor/summarizer';
import { startFakeMessagesApi, toolUseResponse } from '@compactor/testkit/fake-messages-api';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type IngestServer, loadIngestConfig, startIngestServer } from '../src/index.js';
import { appendEvents, bearer, createThread, messageEvent, toolExchange } from './support.js';

const PLAIN_KEY = 'key-without-permission';
const CLEARED_KEY = 'key-with-confidential';
const TENANT = 'tenant-s';
/** A marker that appears only in the confidential tool's output. */
const SECRET = 'ACCT-7731-SECRET-BALANCE';

let running: { ingest: IngestServer; dataDir: string } | undefined;
afterEach(async () => {
  await running?.ingest.close();
  if (running) await rm(running.dataDir, { recursive: true, force: true });
  running = undefined;
});

/** The real ingest over the real runtime (embedded stores and artifacts, in-process queue). */
async function startIngest(environment: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-sensitivity-'));
  const logger = pino({ level: 'silent' });
  const runtime = await createRuntime(
    loadRuntimeConfig({ COMPACTOR_DATA_DIR: dataDir, COMPACTOR_DEBOUNCE_MS: '60000', ...environment }),
    { logger },
  );
  const ingest = await startIngestServer({
    runtime,
    ingest: loadIngestConfig({
      COMPACTOR_API_KEYS: `${PLAIN_KEY}=${TENANT},${CLEARED_KEY}=${TENANT}:${ARTIFACT_PERMISSION_CONFIDENTIAL}`,
    }),
    logger,
  });
  running = { ingest, dataDir };
  return { app: ingest.app, runtime };
}

describe('sensitivity of tool output (ADR-0059)', () => {
  it('a key without the permission sees none of a confidential tool’s output by any route; a key with it does', async () => {
    const { app, runtime } = await startIngest({ COMPACTOR_ARTIFACT_TTL_SECONDS: '7200' });
    const created = await createThread(app, PLAIN_KEY, {
      threadId: 'ledger',
      model: 'claude-sonnet-4-5',
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        clearAtLeastTokens: 10,
        externalizeThresholdTokens: 200,
        toolDurability: {
          defaultDurability: 'anchoring',
          overrides: {
            lookup_account: {
              durability: 'non_replayable',
              artifactSensitivity: 'confidential',
              artifactTtlSeconds: 3600,
            },
          },
        },
      },
    });
    expect(created.statusCode).toBe(201);
    const output = Array.from({ length: 60 }, (_, row) => `row ${row}: ${SECRET} owes 1200`).join('\n');
    const appended = await appendEvents(app, PLAIN_KEY, 'ledger', [
      messageEvent('user', 'What does account 7731 owe?'),
      ...toolExchange('call-1', 'lookup_account', output),
      messageEvent('assistant', 'I looked the account up.'),
      messageEvent('user', 'Thanks. Now summarise the week.'),
      messageEvent('assistant', 'The week was quiet.'),
    ]);
    expect(appended.statusCode).toBe(201);

    const compacted = await app.inject({
      method: 'POST',
      url: '/v1/threads/ledger/compact',
      headers: bearer(PLAIN_KEY),
      payload: { force: true },
    });
    expect(compacted.statusCode, compacted.body).toBe(200);
    expect(compacted.body).not.toContain(SECRET);
    const plan = await app.inject({
      method: 'GET',
      url: '/v1/threads/ledger/plan',
      headers: bearer(PLAIN_KEY),
    });
    const [externalized] = plan.json().current.plan.externalizations as Array<{ artifactId: string }>;
    expect(externalized?.artifactId).toMatch(/^art_/);
    const artifactId = externalized!.artifactId;

    // Stored with the tool's sensitivity and the shorter TTL (the tool's 1 h, not the deployment's 2 h).
    const metadata = await runtime.stores.artifacts.getMetadata(artifactId, {
      requesterId: 'test',
      tenantId: TENANT,
      permissions: [],
    });
    expect(metadata).toMatchObject({ sensitivity: 'confidential', ttlSeconds: 3600 });

    const routes = [
      '/v1/threads/ledger',
      '/v1/threads/ledger/events',
      '/v1/threads/ledger/events?fromSeq=1&limit=50',
      '/v1/threads/ledger/plan',
      '/v1/threads/ledger/prompt',
      '/v1/threads/ledger/prompt?provider=openai-chat',
      `/v1/artifacts/${artifactId}`,
    ];
    for (const url of routes) {
      const response = await app.inject({ method: 'GET', url, headers: bearer(PLAIN_KEY) });
      expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
      expect(response.body, url).not.toContain(SECRET);
      expect(response.body, url).not.toContain('owes 1200');
    }
    const denied = await app.inject({
      method: 'GET',
      url: `/v1/artifacts/${artifactId}`,
      headers: bearer(PLAIN_KEY),
    });
    expect(denied.statusCode).toBe(403);
    const withheld = await app.inject({
      method: 'GET',
      url: '/v1/threads/ledger/events',
      headers: bearer(PLAIN_KEY),
    });
    expect(withheld.body).toContain('[withheld: lookup_account output is confidential');

    // The key with the permission reads the content where it lives.
    const artifact = await app.inject({
      method: 'GET',
      url: `/v1/artifacts/${artifactId}`,
      headers: bearer(CLEARED_KEY),
    });
    expect(artifact.statusCode).toBe(200);
    expect(artifact.json().content).toContain(SECRET);
    const events = await app.inject({
      method: 'GET',
      url: '/v1/threads/ledger/events',
      headers: bearer(CLEARED_KEY),
    });
    expect(events.body).toContain(SECRET);
  });

  it('stores every artifact with the deployment’s default sensitivity and TTL when the tool names none', async () => {
    const { app, runtime } = await startIngest({
      COMPACTOR_ARTIFACT_SENSITIVITY: 'restricted',
      COMPACTOR_ARTIFACT_TTL_SECONDS: '600',
    });
    await createThread(app, PLAIN_KEY, {
      threadId: 'builds',
      model: 'claude-sonnet-4-5',
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        clearAtLeastTokens: 10,
        externalizeThresholdTokens: 200,
        toolDurability: { defaultDurability: 'non_replayable', overrides: {} },
      },
    });
    const log = Array.from(
      { length: 60 },
      (_, row) => `step ${row}: compiled module ${row} of the build`,
    ).join('\n');
    await appendEvents(app, PLAIN_KEY, 'builds', [
      messageEvent('user', 'Build it.'),
      ...toolExchange('call-1', 'run_build', log),
      messageEvent('assistant', 'Built.'),
      messageEvent('user', 'Good.'),
      messageEvent('assistant', 'Anything else?'),
    ]);
    await app.inject({
      method: 'POST',
      url: '/v1/threads/builds/compact',
      headers: bearer(PLAIN_KEY),
      payload: { force: true },
    });
    const plan = await app.inject({
      method: 'GET',
      url: '/v1/threads/builds/plan',
      headers: bearer(PLAIN_KEY),
    });
    const [record] = plan.json().current.plan.externalizations as Array<{ artifactId: string }>;
    const metadata = await runtime.stores.artifacts.getMetadata(record!.artifactId, {
      requesterId: 'test',
      tenantId: TENANT,
      permissions: [],
    });
    expect(metadata).toMatchObject({ sensitivity: 'restricted', ttlSeconds: 600 });
    expect(plan.body).not.toContain('compiled module');
  });

  it('never shows a summarizer a confidential tool’s output that was not externalized', async () => {
    // A model summarizer that copies what it was sent into the summary: whatever it sees, the plan shows.
    const api = await startFakeMessagesApi();
    try {
      api.setFallback((request) =>
        toolUseResponse(SUMMARY_TOOL_NAME, {
          currentTask: 'Check the account',
          facts: [JSON.stringify(request.body).slice(0, 20_000)],
          decisions: [],
          openItems: [],
          currentPlan: null,
          filesRead: [],
          filesModified: [],
          toolOutcomes: [],
        }),
      );
      const { app } = await startIngest({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url });
      await createThread(app, PLAIN_KEY, {
        threadId: 'summarized',
        model: 'claude-sonnet-4-5',
        policy: {
          keepRecentTurns: 1,
          keepRecentTokens: 0,
          clearAtLeastTokens: 10,
          // Never externalized: the summarize rung covers the result instead.
          externalizeThresholdTokens: 100_000,
          toolDurability: {
            defaultDurability: 'anchoring',
            overrides: { lookup_account: { durability: 'anchoring', artifactSensitivity: 'confidential' } },
          },
        },
      });
      const output = Array.from({ length: 40 }, (_, row) => `Account row ${row}: ${SECRET} owes 1200.`).join(
        '\n',
      );
      const turns = [];
      for (let turn = 0; turn < 4; turn += 1) {
        turns.push(
          messageEvent(
            'user',
            `Question ${turn}: what is on the account? ${'please check carefully. '.repeat(10)}`,
          ),
          ...toolExchange(`call-${turn}`, 'lookup_account', output),
          messageEvent(
            'assistant',
            `Answer ${turn}: the account was checked. ${'all is in order. '.repeat(10)}`,
          ),
        );
      }
      expect((await appendEvents(app, PLAIN_KEY, 'summarized', turns)).statusCode).toBe(201);
      const compacted = await app.inject({
        method: 'POST',
        url: '/v1/threads/summarized/compact',
        headers: bearer(PLAIN_KEY),
        payload: { force: true },
      });
      expect(compacted.statusCode, compacted.body).toBe(200);
      const plan = await app.inject({
        method: 'GET',
        url: '/v1/threads/summarized/plan',
        headers: bearer(PLAIN_KEY),
      });
      expect(plan.json().current.plan.summarizations.length).toBeGreaterThan(0);
      expect(api.requests.length).toBeGreaterThan(0);
      expect(JSON.stringify(api.requests.map((request) => request.body))).not.toContain(SECRET);
      for (const response of [compacted, plan]) {
        expect(response.body).not.toContain(SECRET);
        expect(response.body).not.toContain('owes 1200');
      }
    } finally {
      await api.close();
    }
  });
});
