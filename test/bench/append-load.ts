/**
 * The load process of the ingest benchmarks: single-event appends spread round-robin over the
 * given threads, through every given ingest at once (connections split evenly), for a fixed
 * duration, with autocannon. Runs in its own process so it never shares an event loop with what
 * it measures. Prints one JSON line: requests, appends acknowledged, throughput, latencies, and
 * the CPU this process used (on a 2-core machine the load generator takes a share of the cores).
 *
 *   node --import tsx test/bench/append-load.ts <json options>
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

interface LoadOptions {
  urls: string[];
  apiKey: string;
  threadIds: string[];
  connections: number;
  durationSeconds: number;
  /** Seconds of the same load before the measured run (JIT, caches, open logs); not counted. */
  warmupSeconds?: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
let next = 0;
const runId = randomUUID().slice(0, 8);

function appendRequest() {
  const threadId = options.threadIds[next % options.threadIds.length]!;
  const id = `${runId}-${next}`;
  next += 1;
  return {
    method: 'POST' as const,
    path: `/v1/threads/${threadId}/events`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
    body: JSON.stringify({
      events: [
        {
          eventId: id,
          type: 'message.appended',
          message: { id: `m-${id}`, role: 'user', content: [{ type: 'text', text: `load message ${id}` }] },
        },
      ],
    }),
  };
}

const perIngest = Math.max(1, Math.floor(options.connections / options.urls.length));
function load(durationSeconds: number) {
  return Promise.all(
    options.urls.map((url) =>
      autocannon({
        url,
        connections: perIngest,
        // One request in flight per connection (autocannon's default, stated): no pipelining.
        pipelining: 1,
        duration: durationSeconds,
        requests: [{ setupRequest: (request) => ({ ...request, ...appendRequest() }) }],
      }),
    ),
  );
}

if (options.warmupSeconds && options.warmupSeconds > 0) await load(options.warmupSeconds);
process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
const cpuBefore = process.cpuUsage();
const results = await load(options.durationSeconds);
const cpu = process.cpuUsage(cpuBefore);
const acknowledged = results.reduce((sum, result) => sum + result['2xx'], 0);
const seconds = options.durationSeconds;
process.stdout.write(
  `${JSON.stringify({
    ingests: options.urls.length,
    connections: perIngest * options.urls.length,
    requests: results.reduce((sum, result) => sum + result.requests.total, 0),
    acknowledged,
    failed: results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0),
    appendsPerSecond: Math.round(acknowledged / seconds),
    // Each ingest's own percentiles; the slowest one is what a client spread over them sees at worst.
    p50Ms: Math.max(...results.map((result) => result.latency.p50)),
    p99Ms: Math.max(...results.map((result) => result.latency.p99)),
    // The load generator's own CPU during the measured run, in cores (1 = one core busy throughout).
    loadCpuCores: Math.round(((cpu.user + cpu.system) / 1e6 / seconds) * 100) / 100,
  })}\n`,
);
