import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ARTIFACT_PERMISSION_CONFIDENTIAL,
  type CompactionCheckJob,
  CompactorError,
  type EnqueueOptions,
  fixedClock,
  type JobQueue,
} from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { buildIngestApp, type IngestDependencies } from '../src/index.js';

export const KEY_A = 'key-tenant-a';
export const KEY_A_CONFIDENTIAL = 'key-tenant-a-confidential';
export const KEY_B = 'key-tenant-b';
export const TENANT_A = 'tenant-a';
export const TENANT_B = 'tenant-b';

/** A JobQueue that records what it is given and can be told to fail. */
export class RecordingQueue implements JobQueue {
  readonly jobs: Array<{ job: CompactionCheckJob; options: EnqueueOptions | undefined }> = [];
  failing = false;

  async enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void> {
    if (this.failing) throw new CompactorError('unavailable', 'queue is down', { isRetryable: true });
    this.jobs.push({ job, options });
  }

  async close(): Promise<void> {}
}

export interface TestIngest {
  app: FastifyInstance;
  stores: EmbeddedStores;
  queue: JobQueue;
  metrics: Registry;
  dependencies: IngestDependencies;
  dataDir: string;
  cleanup(): Promise<void>;
}

export interface TestIngestOptions {
  queue?: JobQueue;
  limits?: Partial<IngestDependencies['limits']>;
  timeouts?: IngestDependencies['timeouts'];
  /** A data directory the test owns (kept at cleanup); default a fresh temporary one, removed. */
  dataDir?: string;
  logger?: IngestDependencies['logger'];
  storageWriteProbe?: IngestDependencies['storageWriteProbe'];
}

export async function startTestIngest(options: TestIngestOptions = {}): Promise<TestIngest> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'compactor-ingest-')));
  const clock = fixedClock('2025-06-01T00:00:00.000Z');
  const stores = await createEmbeddedStores({ dataDir, clock });
  const engine = createCompactionEngine({
    events: stores.events,
    plans: stores.plans,
    artifacts: stores.artifacts,
    lifecycle: stores.lifecycle,
    summarizer: createExtractiveSummarizer(),
    clock,
  });
  const metrics = new Registry();
  const dependencies: IngestDependencies = {
    stores,
    queue: options.queue ?? new RecordingQueue(),
    engine,
    apiKeys: new Map<string, string | { tenantId: string; permissions: string[] }>([
      [KEY_A, TENANT_A],
      [KEY_A_CONFIDENTIAL, { tenantId: TENANT_A, permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL] }],
      [KEY_B, TENANT_B],
    ]),
    limits: { maxBodyBytes: 256 * 1024, maxEventsPerBatch: 50, ...options.limits },
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.storageWriteProbe ? { storageWriteProbe: options.storageWriteProbe } : {}),
    metrics,
    logger: options.logger ?? pino({ level: 'silent' }),
    clock,
    compactionDebounceMs: 250,
  };
  const app = buildIngestApp(dependencies);
  return {
    app,
    stores,
    queue: dependencies.queue,
    metrics,
    dependencies,
    dataDir,
    async cleanup() {
      await app.close();
      await stores.close();
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

let messageCounter = 0;

/** A message.appended event input with a fresh event id (ids given explicitly stay stable). */
export function messageEvent(
  role: 'user' | 'assistant',
  text: string,
  ids: { eventId?: string; messageId?: string } = {},
) {
  messageCounter += 1;
  return {
    eventId: ids.eventId ?? `event-${messageCounter}`,
    type: 'message.appended' as const,
    message: {
      id: ids.messageId ?? `message-${messageCounter}`,
      role,
      content: [{ type: 'text' as const, text }],
    },
  };
}

/** A tool exchange: an assistant call and its result, as two events. */
export function toolExchange(callId: string, name: string, result: string) {
  messageCounter += 1;
  const n = messageCounter;
  return [
    {
      eventId: `event-${n}-call`,
      type: 'message.appended' as const,
      message: {
        id: `message-${n}-call`,
        role: 'assistant' as const,
        content: [{ type: 'tool_call' as const, id: callId, name, input: { path: `src/${callId}.ts` } }],
      },
    },
    {
      eventId: `event-${n}-result`,
      type: 'message.appended' as const,
      message: {
        id: `message-${n}-result`,
        role: 'tool' as const,
        content: [
          {
            type: 'tool_result' as const,
            toolName: name,
            toolCallId: callId,
            outcome: 'success' as const,
            content: result,
          },
        ],
      },
    },
  ];
}

/** POST /v1/threads through inject. */
export function createThread(
  app: FastifyInstance,
  key: string,
  body: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/v1/threads', headers: bearer(key), payload: body });
}

/** POST /v1/threads/:id/events through inject. */
export function appendEvents(
  app: FastifyInstance,
  key: string,
  threadId: string,
  events: unknown[],
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/v1/threads/${threadId}/events`,
    headers: { ...bearer(key), ...headers },
    payload: { events },
  });
}

/**
 * A thread of `turns` question/answer turns (message ids u1, a1, u2, a2, ...) with a policy that
 * lets a forced compaction summarize all but the last turn.
 */
export async function createConversation(app: FastifyInstance, key: string, threadId: string, turns: number) {
  const created = await createThread(app, key, {
    threadId,
    model: 'claude-sonnet-4-5',
    policy: { keepRecentTurns: 1, keepRecentTokens: 0, clearAtLeastTokens: 10 },
  });
  if (created.statusCode !== 201) throw new Error(`create failed: ${created.body}`);
  await appendTurns(app, key, threadId, 1, turns);
}

export async function appendTurns(
  app: FastifyInstance,
  key: string,
  threadId: string,
  from: number,
  to: number,
) {
  const events = [];
  for (let turn = from; turn <= to; turn += 1) {
    events.push(
      messageEvent('user', `Question ${turn}: ${'tell me about gardens and soil '.repeat(8)}`, {
        eventId: `${threadId}-u${turn}`,
        messageId: `u${turn}`,
      }),
      messageEvent('assistant', `Answer ${turn}: ${'roses like sun and well drained soil. '.repeat(6)}`, {
        eventId: `${threadId}-a${turn}`,
        messageId: `a${turn}`,
      }),
    );
  }
  const appended = await appendEvents(app, key, threadId, events);
  if (appended.statusCode !== 201) throw new Error(`append failed: ${appended.body}`);
  return appended.json() as { version: number; events: Array<{ eventId: string; seq: number }> };
}

/** Listen on a free loopback port; the base URL's host and port. */
export async function listenOnLoopback(app: FastifyInstance): Promise<{ host: string; port: number }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { host: '127.0.0.1', port: address.port };
}
