import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type AppendableEvent, createCompactorClient } from '@compactor/client';
import type { EventInput } from '@compactor/core';
import { loadIngestConfig, startIngestServer } from '@compactor/ingest';
import { createRuntime, loadRuntimeConfig, type Runtime } from '@compactor/runtime';
import { pino } from 'pino';
import type { BenchSizes } from './bench-sizes.js';
import { syntheticMessages } from './synthetic-thread.js';

export interface ThroughputRun {
  batchSize: number;
  clients: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

export interface IngestBenchResult {
  source: string;
  http: ThroughputRun[];
  direct: ThroughputRun[];
  /** Per batch size: HTTP events/s over direct EventStore events/s (1 = no overhead). */
  ratios: { batchSize: number; httpOverDirect: number }[];
}

const API_KEY = 'bench-key';
const TENANT = 'bench';
const MODEL = 'claude-sonnet-4-5';

/** Short synthetic messages (the corpus's size matters little here), each an appendable event. */
function appendables(count: number, client: string): AppendableEvent[] {
  return syntheticMessages(count)
    .slice(0, count)
    .map((message) => ({
      eventId: `${client}-${message.id}`,
      type: 'message.appended',
      message: { ...message, id: `${client}-${message.id}` },
    })) as AppendableEvent[];
}

function batches<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );
}

/** How one side of the comparison writes: over HTTP, or straight into the EventStore. */
interface Writer {
  label: string;
  createThread(threadId: string): Promise<void>;
  append(threadId: string, events: AppendableEvent[]): Promise<void>;
}

/**
 * `clients` concurrent writers, each on its own thread, appending `total / clients` events in
 * batches of `batchSize`, stopping early at `timeLimitMs` (the events stored by then count).
 */
async function measure(
  writer: Writer,
  batchSize: number,
  total: number,
  sizes: BenchSizes['ingest'],
): Promise<ThroughputRun> {
  const perClient = Math.ceil(total / sizes.clients);
  const clientIds = Array.from(
    { length: sizes.clients },
    (_, index) => `${writer.label}-b${batchSize}-c${index}`,
  );
  for (const threadId of clientIds) await writer.createThread(threadId);
  const work = clientIds.map((threadId) => batches(appendables(perClient, threadId), batchSize));
  let stored = 0;
  const started = performance.now();
  const deadline = started + sizes.timeLimitMs;
  await Promise.all(
    work.map(async (threadBatches, index) => {
      for (const batch of threadBatches) {
        if (performance.now() > deadline) return;
        await writer.append(clientIds[index]!, batch);
        stored += batch.length;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { batchSize, clients: sizes.clients, events: stored, seconds, eventsPerSecond: stored / seconds };
}

/** Single events, then batches of 100. */
async function measureWorkloads(writer: Writer, sizes: BenchSizes['ingest']): Promise<ThroughputRun[]> {
  return [
    await measure(writer, 1, sizes.singleEvents, sizes),
    await measure(writer, 100, sizes.batchedEvents, sizes),
  ];
}

async function openRuntime(dataDir: string): Promise<Runtime> {
  const config = loadRuntimeConfig({
    COMPACTOR_STORE: 'embedded',
    COMPACTOR_ARTIFACTS: 'embedded',
    COMPACTOR_QUEUE: 'in-process',
    COMPACTOR_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  });
  return createRuntime(config, { logger: pino({ level: 'silent' }) });
}

/**
 * The all-in-one server in this process (embedded stores, in-process queue and worker) on a
 * loopback port, written to over real HTTP by `@compactor/client`; the peer is the same workload
 * on an embedded EventStore called directly, so the ratio is the API's whole overhead (HTTP,
 * validation, token counting, the compaction enqueue).
 */
export async function benchIngest(sizes: BenchSizes['ingest']): Promise<IngestBenchResult> {
  const httpDir = await mkdtemp(join(tmpdir(), 'compactor-bench-http-'));
  const directDir = await mkdtemp(join(tmpdir(), 'compactor-bench-direct-'));
  let http: ThroughputRun[] = [];
  let direct: ThroughputRun[] = [];
  try {
    const server = await startIngestServer({
      runtime: await openRuntime(httpDir),
      ingest: loadIngestConfig({ COMPACTOR_API_KEYS: `${API_KEY}=${TENANT}`, PORT: '0', HOST: '127.0.0.1' }),
      logger: pino({ level: 'silent' }),
      runWorker: true,
    });
    try {
      const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
      const client = createCompactorClient({ baseUrl: address, apiKey: API_KEY });
      http = await measureWorkloads(
        {
          label: 'http',
          createThread: async (threadId) => void (await client.createThread({ threadId, model: MODEL })),
          append: async (threadId, events) => void (await client.appendEvents(threadId, events)),
        },
        sizes,
      );
    } finally {
      await server.close();
    }

    const runtime = await openRuntime(directDir);
    try {
      const events = runtime.stores.events;
      const created = (threadId: string): EventInput => ({
        eventId: `${threadId}-created`,
        type: 'thread.created',
        model: MODEL,
        contextWindow: 200_000,
      });
      direct = await measureWorkloads(
        {
          label: 'direct',
          createThread: async (threadId) => void (await events.append(TENANT, threadId, [created(threadId)])),
          append: async (threadId, batch) =>
            void (await events.append(TENANT, threadId, batch as EventInput[])),
        },
        sizes,
      );
    } finally {
      await runtime.close();
    }
  } finally {
    await rm(httpDir, { recursive: true, force: true });
    await rm(directDir, { recursive: true, force: true });
  }
  return {
    source: 'synthetic coding-agent messages (HTTP on 127.0.0.1, embedded stores, in-process worker)',
    http,
    direct,
    ratios: http.map((run, index) => ({
      batchSize: run.batchSize,
      httpOverDirect: run.eventsPerSecond / direct[index]!.eventsPerSecond,
    })),
  };
}
