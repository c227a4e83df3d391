import { performance } from 'node:perf_hooks';
import type { EventInput, EventStore } from '@compactor/core';

/**
 * Event store throughput, reusable for any adapter (the MongoDB bench calls it with its own
 * factory). Events are realistic: mostly 200 B – 2 KB messages, 5% tool results of 10–100 KB.
 */
export interface BenchmarkStores {
  events: EventStore;
  /** Close and open again over the same data (for a cold read); optional. */
  reopen?: () => Promise<EventStore>;
  cleanup: () => Promise<void>;
}

export interface BenchmarkRow {
  adapter: string;
  operation: string;
  events: number;
  megabytes: number;
  seconds: number;
  eventsPerSecond: number;
  megabytesPerSecond: number;
}

export interface BenchmarkSizes {
  singleEventAppends: number;
  concurrentThreads: number;
  batchesOf100: number;
}

export const DEFAULT_BENCHMARK_SIZES: BenchmarkSizes = {
  singleEventAppends: 3_000,
  concurrentThreads: 16,
  batchesOf100: 200,
};

/** Deterministic pseudo-random numbers (mulberry32), so every run writes the same events. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS = 'the agent reads file src index ts and runs tests then fixes failing assertion in module'.split(
  ' ',
);

function prose(random: () => number, bytes: number): string {
  let text = '';
  while (text.length < bytes) text += `${WORDS[Math.floor(random() * WORDS.length)]} `;
  return text.slice(0, bytes);
}

export function makeEventFactory(seed: number): (id: string) => EventInput {
  const random = randomSource(seed);
  return (id) => {
    if (random() < 0.05) {
      const bytes = 10_000 + Math.floor(random() * 90_000);
      return {
        eventId: id,
        type: 'message.appended',
        tokens: Math.round(bytes / 4),
        message: {
          id: `m-${id}`,
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              toolName: 'read_file',
              toolCallId: `call-${id}`,
              outcome: 'success',
              content: prose(random, bytes),
              keyFields: { path: 'src/index.ts' },
            },
          ],
        },
      };
    }
    const bytes = 200 + Math.floor(random() * 1_800);
    return {
      eventId: id,
      type: 'message.appended',
      tokens: Math.round(bytes / 4),
      message: {
        id: `m-${id}`,
        role: random() < 0.5 ? 'user' : 'assistant',
        content: [{ type: 'text', text: prose(random, bytes) }],
      },
    };
  };
}

function eventBytes(events: readonly EventInput[]): number {
  return events.reduce((total, event) => total + Buffer.byteLength(JSON.stringify(event)), 0);
}

function row(
  adapter: string,
  operation: string,
  events: number,
  bytes: number,
  seconds: number,
): BenchmarkRow {
  return {
    adapter,
    operation,
    events,
    megabytes: bytes / 1_048_576,
    seconds,
    eventsPerSecond: events / seconds,
    megabytesPerSecond: bytes / 1_048_576 / seconds,
  };
}

async function timed(task: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await task();
  return (performance.now() - start) / 1000;
}

function createdEvent(): EventInput {
  return { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 };
}

export async function runStoreBenchmark(
  adapter: string,
  makeStores: () => Promise<BenchmarkStores>,
  sizes: BenchmarkSizes = DEFAULT_BENCHMARK_SIZES,
): Promise<BenchmarkRow[]> {
  const rows: BenchmarkRow[] = [];
  const stores = await makeStores();
  const tenant = 'bench-tenant';
  try {
    let events = stores.events;
    const nextEvent = makeEventFactory(42);

    // Batches of 1, one thread, one after another: the latency-bound case (an fsync each).
    const single = Array.from({ length: sizes.singleEventAppends }, (_, index) => nextEvent(`s-${index}`));
    await events.append(tenant, 'single', [createdEvent()]);
    const singleSeconds = await timed(async () => {
      for (const event of single) await events.append(tenant, 'single', [event]);
    });
    rows.push(
      row(adapter, 'append, batch of 1, one thread', single.length, eventBytes(single), singleSeconds),
    );

    // Batches of 1 on many threads at once: what a busy ingest sees.
    const perThread = Math.ceil(sizes.singleEventAppends / sizes.concurrentThreads);
    const threads = Array.from({ length: sizes.concurrentThreads }, (_, index) => `concurrent-${index}`);
    const concurrent = threads.map((thread) =>
      Array.from({ length: perThread }, (_, index) => nextEvent(`${thread}-${index}`)),
    );
    await Promise.all(threads.map((thread) => events.append(tenant, thread, [createdEvent()])));
    const concurrentSeconds = await timed(async () => {
      await Promise.all(
        threads.map(async (thread, threadIndex) => {
          for (const event of concurrent[threadIndex]!) await events.append(tenant, thread, [event]);
        }),
      );
    });
    rows.push(
      row(
        adapter,
        `append, batch of 1, ${sizes.concurrentThreads} threads at once`,
        perThread * threads.length,
        eventBytes(concurrent.flat()),
        concurrentSeconds,
      ),
    );

    // Batches of 100, one thread.
    const batches = Array.from({ length: sizes.batchesOf100 }, (_, batchIndex) =>
      Array.from({ length: 100 }, (_, index) => nextEvent(`b-${batchIndex}-${index}`)),
    );
    await events.append(tenant, 'batched', [createdEvent()]);
    const batchSeconds = await timed(async () => {
      for (const batch of batches) await events.append(tenant, 'batched', batch);
    });
    const batchedBytes = eventBytes(batches.flat());
    rows.push(
      row(adapter, 'append, batch of 100, one thread', batches.length * 100, batchedBytes, batchSeconds),
    );

    // Reads: the whole batched thread, page by page.
    const total = batches.length * 100 + 1;
    const warmSeconds = await timed(async () => {
      const all = await events.readAll(tenant, 'batched');
      if (all.length !== total) throw new Error(`read ${all.length} events, expected ${total}`);
    });
    rows.push(row(adapter, 'read all (warm)', total, batchedBytes, warmSeconds));

    if (stores.reopen) {
      events = await stores.reopen();
      const coldSeconds = await timed(async () => {
        const all = await events.readAll(tenant, 'batched');
        if (all.length !== total) throw new Error(`read ${all.length} events, expected ${total}`);
      });
      rows.push(row(adapter, 'read all after a restart (index rebuilt)', total, batchedBytes, coldSeconds));
    }

    // Reads of the newest page, as a renderer or worker catching up does.
    const tailReads = 500;
    const tailSeconds = await timed(async () => {
      for (let index = 0; index < tailReads; index += 1)
        await events.read(tenant, 'batched', { fromSeq: total - 49, limit: 50 });
    });
    rows.push(
      row(
        adapter,
        'read newest 50 events, repeated',
        tailReads * 50,
        (batchedBytes / total) * 50 * tailReads,
        tailSeconds,
      ),
    );
  } finally {
    await stores.cleanup();
  }
  return rows;
}

export function formatBenchmarkTable(rows: readonly BenchmarkRow[]): string {
  const header = '| adapter | operation | events | MB | seconds | events/s | MB/s |';
  const divider = '|---|---|--:|--:|--:|--:|--:|';
  const lines = rows.map(
    (entry) =>
      `| ${entry.adapter} | ${entry.operation} | ${entry.events} | ${entry.megabytes.toFixed(1)} | ${entry.seconds.toFixed(2)} | ` +
      `${Math.round(entry.eventsPerSecond).toLocaleString('en-US')} | ${entry.megabytesPerSecond.toFixed(1)} |`,
  );
  return [header, divider, ...lines].join('\n');
}
