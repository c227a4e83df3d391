import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, loadRuntimeConfig } from '@compactor/runtime';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type IngestServer, loadIngestConfig, startIngestServer } from '../src/index.js';
import { appendEvents, bearer, createThread, KEY_A, messageEvent } from './support.js';

let running: { ingest: IngestServer; dataDir: string } | undefined;
afterEach(async () => {
  await running?.ingest.close();
  if (running) await rm(running.dataDir, { recursive: true, force: true });
  running = undefined;
});

describe('the all-in-one server (runtime + ingest + in-process worker)', () => {
  it('compacts a thread in the background after appends push it over its trigger', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'compactor-runtime-'));
    const logger = pino({ level: 'silent' });
    const runtime = await createRuntime(
      loadRuntimeConfig({ COMPACTOR_DATA_DIR: dataDir, COMPACTOR_DEBOUNCE_MS: '0' }),
      { logger },
    );
    const ingest = await startIngestServer({
      runtime,
      ingest: loadIngestConfig({ COMPACTOR_API_KEYS: `${KEY_A}=tenant-a` }),
      logger,
    });
    expect(ingest.worker).toBeDefined();
    running = { ingest, dataDir };
    const { app } = ingest;
    await createThread(app, KEY_A, {
      threadId: 'busy',
      model: 'claude-sonnet-4-5',
      contextWindow: 8_000,
      policy: { outputReserveTokens: 1_000, keepRecentTurns: 1, keepRecentTokens: 0, clearAtLeastTokens: 10 },
    });
    const events = [];
    for (let turn = 1; turn <= 12; turn += 1) {
      events.push(
        messageEvent('user', `Question ${turn}: ${'how do I prune apple trees in winter? '.repeat(30)}`),
        messageEvent(
          'assistant',
          `Answer ${turn}: ${'cut crossing branches above an outward bud. '.repeat(30)}`,
        ),
      );
    }
    expect((await appendEvents(app, KEY_A, 'busy', events)).statusCode).toBe(201);
    const thread = await app.inject({ method: 'GET', url: '/v1/threads/busy', headers: bearer(KEY_A) });
    expect(thread.json().tokens.messages).toBeGreaterThan(0.85 * 8_000);

    let planVersion = 0;
    for (let attempt = 0; attempt < 100 && planVersion === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const plan = await app.inject({ method: 'GET', url: '/v1/threads/busy/plan', headers: bearer(KEY_A) });
      planVersion = plan.json().current.version;
    }
    expect(planVersion).toBe(1);
    const prompt = await app.inject({
      method: 'GET',
      url: '/v1/threads/busy/prompt',
      headers: bearer(KEY_A),
    });
    expect(prompt.json().report).toMatchObject({ planVersion: 1, emergencyFit: null });
  });
});
