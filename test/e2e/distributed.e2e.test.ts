/**
 * End-to-end 2: ingest and worker as separate processes on real Redis (BullMQ), artifacts in S3
 * (s3rver), events and plans in one embedded data directory opened by both in shared mode (or
 * MongoDB when MONGODB_URI is set). The same assertions as end-to-end 1, with the plan committed
 * by the worker process; then the worker is SIGKILLed in the middle of a check, restarted, and the
 * check completes: no accepted event lost, exactly one plan version committed for it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompactorClient, createCompactorClient } from '@compactor/client';
import { type EventInput, isConversationEvent } from '@compactor/core';
import { importTranscriptFile } from '@compactor/importers';
import { validateProviderRequest } from '@compactor/render/validate';
import { SUMMARY_TOOL_NAME } from '@compactor/summarizer';
import { corpusAvailable, corpusFile } from '@compactor/testkit/corpus';
import {
  type FakeMessagesApi,
  type ScriptedResponse,
  startFakeMessagesApi,
  toolUseResponse,
} from '@compactor/testkit/fake-messages-api';
import {
  type RedisForTests,
  redisAvailableForTests,
  redisInstallHint,
  requireRedisForTests,
} from '@compactor/testkit/redis-server';
import { type RunningS3rver, startS3rver } from '@compactor/testkit/s3rver';
import { createTokenizer } from '@compactor/tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppProcess, type LogLine, startApp } from './app-process.js';

const available = redisAvailableForTests();
const mongoUri = process.env.MONGODB_URI;
const storeName = mongoUri ? 'MongoDB' : 'a shared embedded directory';
const suiteName = `ingest and worker as separate processes (Redis, s3rver, ${storeName})${available ? '' : ` ${redisInstallHint}`}`;

const KEY_A = 'key-tenant-a';
const KEY_B = 'key-tenant-b';
const MODEL = 'claude-sonnet-4-5';
const BUCKET = 'compactor-e2e-artifacts';
const goodSummary = {
  currentTask: 'Plan the vegetable garden week by week',
  facts: ['Never suggest pesticides.'],
  decisions: [{ decision: 'Mulch every bed', rationale: 'keeps the soil moist' }],
  openItems: [],
  currentPlan: null,
  filesRead: [],
  filesModified: [],
  toolOutcomes: [],
};

/** A chat long enough to need compaction in an 8,000-token window. */
function gardenConversation(label: string, turns = 40): MessageEvent[] {
  const events: MessageEvent[] = [
    userMessage(`${label}-0`, 'Plan my vegetable garden. Never suggest pesticides.'),
  ];
  for (let turn = 1; turn <= turns; turn += 1) {
    events.push({
      eventId: `${label}-a${turn}`,
      type: 'message.appended',
      message: {
        id: `${label}-ma${turn}`,
        role: 'assistant',
        content: [
          { type: 'text', text: `Week ${turn}: ${'sow, water, mulch and watch for slugs. '.repeat(25)}` },
        ],
      },
    });
    events.push(userMessage(`${label}-u${turn}`, `And week ${turn + 1}?`));
  }
  return events;
}

function userMessage(eventId: string, text: string): MessageEvent {
  return {
    eventId,
    type: 'message.appended',
    message: { id: `m-${eventId}`, role: 'user', content: [{ type: 'text', text }] },
  };
}

/** The events the API appends to an existing thread. */
type MessageEvent = Extract<EventInput, { type: 'message.appended' }>;

const committedFor = (threadId: string) => (line: LogLine) =>
  line.msg === 'compaction plan committed' && line.threadId === threadId;

describe.skipIf(!available)(suiteName, () => {
  let redis: RedisForTests;
  let s3: RunningS3rver | undefined;
  let api: FakeMessagesApi;
  /** How long the fake Messages API takes to answer: the slow check of the SIGKILL test. */
  let answerDelayMs = 0;
  let workDirectory: string;
  let environment: Record<string, string>;
  let ingest: AppProcess;
  let baseUrl: string;
  let client: CompactorClient;
  const workers: AppProcess[] = [];

  function startWorker(): AppProcess {
    const worker = startApp('apps/worker/src/main.ts', {
      ...environment,
      // Debug: the worker then logs every finished check.
      LOG_LEVEL: 'debug',
      COMPACTOR_WORKER_METRICS_PORT: '',
    });
    workers.push(worker);
    return worker;
  }

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'compactor-e2e-distributed-'));
    redis = await requireRedisForTests();
    s3 = await startS3rver();
    const s3Endpoint = s3.endpoint;
    await s3.createBucket(BUCKET);
    api = await startFakeMessagesApi();
    api.setFallback(
      (): ScriptedResponse => ({
        ...toolUseResponse(SUMMARY_TOOL_NAME, goodSummary),
        delayMs: answerDelayMs,
      }),
    );
    const store: Record<string, string> = mongoUri
      ? {
          COMPACTOR_STORE: 'mongo',
          MONGODB_URI: mongoUri,
          MONGODB_DB: `compactor_e2e_${randomUUID().slice(0, 8)}`,
        }
      : { COMPACTOR_DATA_DIR: join(workDirectory, 'data'), COMPACTOR_EMBEDDED_SHARING: 'shared' };
    environment = {
      ...store,
      COMPACTOR_QUEUE: 'bullmq',
      REDIS_URL: redis.url,
      COMPACTOR_QUEUE_PREFIX: `{e2e-${randomUUID()}}`,
      COMPACTOR_ARTIFACTS: 's3',
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: s3Endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
      COMPACTOR_API_KEYS: `${KEY_A}=tenant-a,${KEY_B}=tenant-b`,
      COMPACTOR_MAX_BODY_BYTES: String(1024 * 1024),
      COMPACTOR_DEBOUNCE_MS: '50',
      COMPACTOR_SWEEP_INTERVAL_MS: '0',
      // A dead worker's check is recovered about a second after its last lock renewal.
      COMPACTOR_LOCK_DURATION_MS: '1000',
      COMPACTOR_STALLED_INTERVAL_MS: '500',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    };
    ingest = startApp('apps/ingest/src/main.ts', environment);
    const listening = await ingest.waitForLog(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at http://127.0.0.1:'),
      'its address',
      60_000,
    );
    baseUrl = (listening.msg as string).slice('Server listening at '.length);
    client = createCompactorClient({ baseUrl, apiKey: KEY_A });
    await startWorker().waitForLog((line) => line.msg === 'compaction worker ready', 'readiness', 60_000);
  });

  afterAll(async () => {
    for (const worker of workers) await worker.stop('SIGKILL');
    if (ingest) expect((await ingest.stop()).code, ingest.output()).toBe(0);
    await api?.close();
    await s3?.stop();
    await redis?.stop();
    await rm(workDirectory, { recursive: true, force: true });
  });

  const allWorkerLogs = () => workers.flatMap((worker) => worker.logs);

  /** Append through the API one message per request; the worker process compacts as it grows. */
  async function replayThroughWorker(events: MessageEvent[], contextWindow: number) {
    const { threadId } = await client.createThread({
      threadId: `replay-${randomUUID().slice(0, 8)}`,
      model: MODEL,
      contextWindow,
    });
    for (const event of events) await client.appendEvents(threadId, [event]);
    const worker = workers.at(-1)!;
    await worker.waitForLog(committedFor(threadId), `a commit for ${threadId}`, 60_000);
    await expect
      .poll(async () => (await client.getPlan(threadId)).current.version, { timeout: 30_000 })
      .toBeGreaterThan(0);
    // Committed by the worker process, never by the ingest (no manual compaction here).
    expect(ingest.logs.filter(committedFor(threadId))).toEqual([]);
    const prompt = await client.renderPrompt(threadId, { provider: 'anthropic' });
    const stored = await client.readAllEvents(threadId);
    // The conversation, then (interleaved) one plan.committed per committed version (ADR-0190).
    expect(stored.filter((event) => isConversationEvent(event.type)).map((event) => event.eventId)).toEqual([
      expect.any(String),
      ...events.map((event) => event.eventId),
    ]);
    expect(stored.filter((event) => event.type === 'plan.committed').length).toBe(
      (await client.getPlan(threadId)).current.version,
    );
    expect(validateProviderRequest('anthropic', prompt.request).errors).toEqual([]);
    expect(prompt.tokens.total).toBeLessThanOrEqual(prompt.report.ceiling);
    // Counted independently of the renderer: the request fits the ceiling.
    const tokenizer = createTokenizer({ model: MODEL });
    expect(tokenizer.countRequest(prompt.request as never, 'anthropic')).toBeLessThanOrEqual(
      prompt.report.ceiling,
    );
    expect(prompt.report.ceiling).toBeLessThanOrEqual(contextWindow);
    return { threadId, prompt };
  }

  it('compacts a conversation appended through the API in the worker process; the prompt is valid and within budget', async () => {
    await replayThroughWorker(gardenConversation('g'), 8000);
  });

  it.skipIf(!corpusAvailable('pi', 'session.jsonl'))(
    'does the same for a real pi session (needs ../shared/corpus)',
    async () => {
      const imported = await importTranscriptFile(corpusFile('pi', 'session.jsonl'));
      const messages = imported.events.filter(
        (event): event is MessageEvent => event.type === 'message.appended',
      );
      expect(messages.length).toBeGreaterThan(400);
      await replayThroughWorker(messages, 64_000);
    },
  );

  it('answers bad input with 400/401/404/409/413 and changes nothing', async () => {
    const { threadId } = await client.createThread({ threadId: 'guarded', model: MODEL });
    await client.appendEvents(threadId, [userMessage('e1', 'hello')]);
    const before = await client.getThread(threadId);
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const eventsPath = `/v1/threads/${threadId}/events`;
    const invalid = await post(eventsPath, {
      events: [
        { eventId: 'bad', type: 'message.appended', message: { id: 'm2', role: 'user', content: [] } },
      ],
    });
    expect(invalid.status).toBe(400);
    const invalidBody = (await invalid.json()) as { error: { issues: Array<{ path: string }> } };
    expect(invalidBody.error.issues[0]!.path).toContain('content');
    expect((await fetch(`${baseUrl}/v1/threads/${threadId}`)).status).toBe(401);
    expect(
      (await fetch(`${baseUrl}/v1/threads/${threadId}`, { headers: { authorization: 'Bearer nope' } }))
        .status,
    ).toBe(401);
    expect(
      (await fetch(`${baseUrl}/v1/threads/${threadId}`, { headers: { authorization: `Bearer ${KEY_B}` } }))
        .status,
    ).toBe(404);
    const otherTenant = await fetch(`${baseUrl}${eventsPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_B}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [userMessage('x', 'hi')] }),
    });
    expect(otherTenant.status).toBe(404);
    expect(
      (await post(eventsPath, { events: [userMessage('e2', 'late')] }, { 'if-match': '"1"' })).status,
    ).toBe(409);
    expect((await post(eventsPath, { events: [userMessage('e1', 'changed')] })).status).toBe(409);
    expect(
      (await post(eventsPath, { events: [userMessage('e3', 'x'.repeat(2 * 1024 * 1024))] })).status,
    ).toBe(413);

    const after = await client.getThread(threadId);
    expect(after.version).toBe(before.version);
    expect(after.eventCount).toBe(before.eventCount);
    const events = await client.readAllEvents(threadId);
    expect(events.map((event) => event.eventId)).toEqual([events[0]!.eventId, 'e1']);
    expect(events[1]!.type === 'message.appended' && events[1]!.message.content).toEqual([
      { type: 'text', text: 'hello' },
    ]);
  });

  it('SIGKILL mid-check: a restarted worker completes it; no accepted event lost, one plan version', async () => {
    const { threadId } = await client.createThread({
      threadId: `killed-${randomUUID().slice(0, 8)}`,
      model: MODEL,
      contextWindow: 8000,
    });
    answerDelayMs = 60_000;
    const requestsBefore = api.requests.length;
    const conversation = gardenConversation('k');
    // One batch, so exactly one check is enqueued for it.
    expect((await postEvents(baseUrl, threadId, conversation)).status).toBe(201);
    await expect.poll(() => api.requests.length, { timeout: 30_000 }).toBeGreaterThan(requestsBefore);
    const doomed = workers.at(-1)!;
    doomed.child.kill('SIGKILL');
    expect(await doomed.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect((await client.getPlan(threadId)).history).toEqual([]);

    // No worker runs: the ingest still accepts events (201).
    const late = userMessage('k-late', 'Also plant garlic in October.');
    expect((await postEvents(baseUrl, threadId, [late])).status).toBe(201);

    answerDelayMs = 0;
    const survivor = startWorker();
    await survivor.waitForLog(committedFor(threadId), `the recovered commit for ${threadId}`, 60_000);
    // Let the late event's check run too (it finds the thread under its trigger), then look.
    await survivor.waitForLog(
      (line) =>
        line.msg === 'compaction check completed' &&
        line.threadId === threadId &&
        line.status !== 'compacted',
      'the late check',
      30_000,
    );

    const plan = await client.getPlan(threadId);
    expect(plan.history.map((entry) => entry.version)).toEqual([1]);
    expect(allWorkerLogs().filter(committedFor(threadId))).toHaveLength(1);
    expect(doomed.logs.filter(committedFor(threadId))).toEqual([]);
    const stored = await client.readAllEvents(threadId);
    const sentIds = [...conversation, late].map((event) => event.eventId);
    const storedIds = stored.map((event) => event.eventId);
    for (const id of sentIds) expect(storedIds.filter((stored) => stored === id)).toHaveLength(1);
    // + thread.created; the one commit is logged as plan.committed (ADR-0190).
    expect(stored.filter((event) => isConversationEvent(event.type))).toHaveLength(sentIds.length + 1);
    expect(stored.filter((event) => event.type === 'plan.committed')).toHaveLength(1);
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
    const prompt = await client.renderPrompt(threadId, { provider: 'anthropic' });
    expect(validateProviderRequest('anthropic', prompt.request).errors).toEqual([]);
    expect(prompt.report.planVersion).toBe(1);
  });
});

function postEvents(baseUrl: string, threadId: string, events: EventInput[]): Promise<Response> {
  return fetch(`${baseUrl}/v1/threads/${threadId}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
}
