import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedClock, type JobQueue } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine } from '@compactor/engine';
import { buildIngestApp } from '@compactor/ingest';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { pino } from 'pino';
import { Registry } from 'prom-client';

export const API_KEY = 'client-test-key';
export const TENANT = 'client-tenant';

/** The app type, without depending on fastify here. */
export type IngestApp = ReturnType<typeof buildIngestApp>;

const noQueue: JobQueue = { async enqueueCompactionCheck() {}, async close() {} };

export interface RunningIngest {
  app: IngestApp;
  stores: EmbeddedStores;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * The real ingest app on a loopback port, over embedded stores in a temp directory.
 * `beforeListen` may add hooks (to simulate failures) before the app starts.
 */
export async function startIngest(beforeListen?: (app: IngestApp) => void): Promise<RunningIngest> {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-client-'));
  const clock = fixedClock('2025-06-01T00:00:00.000Z');
  const stores = await createEmbeddedStores({ dataDir, clock });
  const app = buildIngestApp({
    stores,
    queue: noQueue,
    engine: createCompactionEngine({
      events: stores.events,
      plans: stores.plans,
      summarizer: createExtractiveSummarizer(),
      clock,
    }),
    apiKeys: new Map([[API_KEY, TENANT]]),
    limits: { maxBodyBytes: 1024 * 1024, maxEventsPerBatch: 100 },
    metrics: new Registry(),
    logger: pino({ level: 'silent' }),
    clock,
  });
  beforeListen?.(app);
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    stores,
    baseUrl,
    async stop() {
      await app.close();
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function userMessage(eventId: string, messageId: string, text: string) {
  return {
    eventId,
    type: 'message.appended' as const,
    message: { id: messageId, role: 'user' as const, content: [{ type: 'text' as const, text }] },
  };
}
