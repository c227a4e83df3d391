/**
 * The ingest's request latency while a large heap is churned, per heap compaction mode (ADR-0355,
 * ADR-0395): full-collection pauses stall every request in flight, so the tail shows them.
 *
 * Per round, each mode in turn (paired under the same machine load), a fresh ingest
 * (`apps/ingest/src/main.ts` through tsx, in-process queue and worker, embedded store, its default
 * cache bounds) is started with `COMPACTOR_HEAP_COMPACTION=<mode>`; `--threads` threads are created
 * and seeded with `--seed` messages each (filling the fold, render and store caches), then for
 * `--duration` seconds `--connections` loops append batches of messages to random threads and render
 * every third request's thread (`POST .../prompt`). Reported per run: every request's latency
 * (p50 / p99 / p99.9 / max), the full collections of the measured window from the server's own
 * `perf_hooks` 'gc' entries (`gc-recorder.mjs`: count, pauses in all, longest; the scavenges' count and
 * pauses; the old space committed after each full collection), the compactions the
 * `when-over-bounds` or `when-fragmented` schedule logged, the server's RSS at the end (and its growth since
 * it answered health over the byte bounds of its caches, which it logs with its heap budget), the old space
 * after the window's last full collection, and the server's CPU.
 *
 *   pnpm --filter @compactor/e2e bench:ingest-heap [-- --modes every-full-gc,when-over-bounds,when-fragmented,v8-default
 *     --rounds 1 --threads 4000 --seed 30 --duration 90 --connections 8 --interval <seconds> --v8-flags <flags>
 *     --v8-flag-sets '<flags>;<flags>' --keep-logs]
 *
 * `--v8-flag-sets` runs each mode once per set of server V8 flags (`;` between sets, `,` within one, an
 * empty set for none), alternating within each round, e.g. `';--max-semi-space-size=64'` (ADR-0475).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { repositoryRoot } from '../e2e/serve-process.js';
import { cpuSecondsOf, freePort, stop, waitForHealth } from './bench-processes.js';

const API_KEY = 'bench-key';
const TENANT = 'tenant-bench';

const { values } = parseArgs({
  // pnpm passes its own `--` separator through.
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    modes: { type: 'string', default: 'every-full-gc,when-over-bounds,when-fragmented,v8-default' },
    rounds: { type: 'string', default: '1' },
    threads: { type: 'string', default: '4000' },
    seed: { type: 'string', default: '30' },
    duration: { type: 'string', default: '90' },
    connections: { type: 'string', default: '8' },
    /** COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS for the server (its default when not given). */
    interval: { type: 'string' },
    /** V8 flags for the server's command line, comma-separated (e.g. `--heap-growing-percent=50`), to try one beside a mode. */
    'v8-flags': { type: 'string', default: '' },
    /** Several sets of server V8 flags, `;` between sets: every mode runs once per set in each round. */
    'v8-flag-sets': { type: 'string' },
    /** Keep the servers' logs and full-collection logs (their folder is printed) instead of removing them. */
    'keep-logs': { type: 'boolean', default: false },
  },
});
const modes = values.modes.split(',');
const rounds = Number(values.rounds);
const threadCount = Number(values.threads);
const seedMessages = Number(values.seed);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const v8FlagSets = (values['v8-flag-sets'] ?? values['v8-flags'])
  .split(';')
  .map((set) => set.split(',').filter(Boolean));

const WORDS = (
  'the build failed because the module resolution could not find the exported symbol in the ' +
  'package so we rewrote the import path and reran the tests which passed after the cache cleared ' +
  'while the linter still warned about an unused variable in the handler of the request'
).split(' ');

function text(seed: number, words: number): string {
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) out.push(WORDS[(seed * 7 + index * 13) % WORDS.length]!);
  return `${seed}: ${out.join(' ')}`;
}

let nextMessage = 0;
function batch(size: number) {
  return Array.from({ length: size }, () => {
    nextMessage += 1;
    const id = `e${nextMessage}`;
    return {
      eventId: id,
      type: 'message.appended',
      message: {
        id: `m${nextMessage}`,
        role: nextMessage % 2 === 0 ? 'assistant' : 'user',
        content: [{ type: 'text', text: text(nextMessage, 60) }],
      },
    };
  });
}

/** One full collection's line of `gc-recorder.mjs`'s log. */
interface FullCollectionLine {
  kind: 'full';
  at: number;
  durationMs: number;
  oldSpaceUsedMiB: number;
  oldSpaceCommittedMiB: number;
  newSpaceCommittedMiB: number;
  rssMiB: number;
}

/** One observer batch's scavenges in `gc-recorder.mjs`'s log. */
interface ScavengesLine {
  kind: 'scavenges';
  at: number;
  count: number;
  durationMs: number;
  longestMs: number;
  newSpaceCommittedMiB: number;
}

interface RunResult {
  mode: string;
  v8Flags: string;
  round: number;
  requests: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  fullCollections: number;
  pausesMs: number;
  longestPauseMs: number;
  pausesOver250Ms: number;
  scheduledCompactions: number;
  rssMiB: number;
  /** RSS at the end less RSS once the server answered health, over the byte bounds of its caches. */
  rssGrowthOverBounds: number;
  /** The same growth read just after the window's full collections (unsettled): the last one's and the largest. */
  rssGrowthAfterLastCollectionOverBounds: number;
  rssGrowthAfterCollectionsMaxOverBounds: number;
  /** The old space read just after the window's last full collection: what is live, and what it holds in pages. */
  oldSpaceUsedMiB: number;
  oldSpaceCommittedMiB: number;
  /** The old space committed after each of the window's full collections, in order. */
  oldSpaceCommittedAfterEachMiB: number[];
  scavenges: number;
  scavengePausesMs: number;
  longestScavengeMs: number;
  /** Both semi-spaces, read after the window's last collection. */
  newSpaceCommittedMiB: number;
  serverCpuSeconds: number;
  loadAverage: string;
}

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

function rssMiBOf(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

async function call(url: string, path: string, body: unknown): Promise<boolean> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.ok;
}

async function inParallel(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await work(index);
      }
    }),
  );
}

function startServer(
  mode: string,
  v8Flags: string[],
  port: number,
  dataDir: string,
  gcLog: string,
  logPath: string,
): ChildProcess {
  const log = openSync(logPath, 'a');
  return spawn(
    process.execPath,
    [
      ...v8Flags,
      '--import',
      resolve(repositoryRoot, 'test/bench/gc-recorder.mjs'),
      '--import',
      'tsx',
      resolve(repositoryRoot, 'apps/ingest/src/main.ts'),
    ],
    {
      cwd: resolve(repositoryRoot, 'apps/ingest'),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        UV_THREADPOOL_SIZE: '16',
        COMPACTOR_STORE: 'embedded',
        COMPACTOR_DATA_DIR: dataDir,
        COMPACTOR_HEAP_COMPACTION: mode,
        ...(values.interval ? { COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS: values.interval } : {}),
        COMPACTOR_BENCH_GC_LOG: gcLog,
        COMPACTOR_API_KEYS: `${API_KEY}=${TENANT}`,
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      stdio: ['ignore', log, log],
    },
  );
}

async function measure(
  mode: string,
  v8Flags: string[],
  round: number,
  workDirectory: string,
): Promise<RunResult> {
  const name = `${mode}${v8Flags.join('')}-${round}`;
  const dataDir = join(workDirectory, name);
  const gcLog = join(workDirectory, `${name}.gc.jsonl`);
  const logPath = join(workDirectory, `${name}.log`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = startServer(mode, v8Flags, port, dataDir, gcLog, logPath);
  try {
    await waitForHealth(url);
    const rssAtStartMiB = rssMiBOf(child.pid);
    const threadIds = Array.from({ length: threadCount }, (_, index) => `heap-${index}`);
    // Seed: every thread created and given its history; its prompt rendered once (caches fill).
    await inParallel(threadCount, async (index) => {
      const threadId = threadIds[index]!;
      await call(url, '/v1/threads', {
        threadId,
        eventId: `create-${threadId}`,
        model: 'claude-sonnet-4-5',
        contextWindow: 200_000,
      });
      await call(url, `/v1/threads/${threadId}/events`, { events: batch(seedMessages) });
      await call(url, `/v1/threads/${threadId}/prompt`, {});
    });
    process.stderr.write(
      `${name}: seeded ${threadCount} threads, RSS ${rssMiBOf(child.pid).toFixed(0)} MiB\n`,
    );
    const latencies: number[] = [];
    let failed = 0;
    let request = 0;
    const cpuAtStart = cpuSecondsOf(child.pid);
    const startedAt = Date.now();
    const endsAt = startedAt + durationSeconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < endsAt) {
          request += 1;
          const threadId = threadIds[Math.floor(Math.random() * threadIds.length)]!;
          const began = performance.now();
          const ok =
            request % 3 === 0
              ? await call(url, `/v1/threads/${threadId}/prompt`, {})
              : await call(url, `/v1/threads/${threadId}/events`, { events: batch(4) });
          latencies.push(performance.now() - began);
          if (!ok) failed += 1;
        }
      }),
    );
    const endedAt = Date.now();
    const serverCpuSeconds = cpuSecondsOf(child.pid) - cpuAtStart;
    const rssMiB = rssMiBOf(child.pid);
    const windowLines = (await readFile(gcLog, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FullCollectionLine | ScavengesLine)
      .filter((entry) => entry.at >= startedAt && entry.at <= endedAt);
    const windowCollections = windowLines.filter(
      (entry): entry is FullCollectionLine => entry.kind === 'full',
    );
    const windowScavenges = windowLines.filter((entry): entry is ScavengesLine => entry.kind === 'scavenges');
    const pauses = windowCollections.map((entry) => entry.durationMs);
    const lastCollection = windowCollections.at(-1);
    const scheduledCompactions = (await readFile(logPath, 'utf8'))
      .split('\n')
      .filter((line) => line.includes('"msg":"heap compaction"') && line.includes('"kind":"compacted"'))
      .map((line) => JSON.parse(line) as { time: number })
      .filter((line) => line.time >= startedAt && line.time <= endedAt).length;
    const sorted = latencies.sort((left, right) => left - right);
    // The server logs the byte bounds of its caches with its heap budget once listening (ADR-0425).
    const budgetLine = (await readFile(logPath, 'utf8'))
      .split('\n')
      .find((line) => line.includes('"msg":"heap budget"'));
    const cacheBoundsMiB = budgetLine
      ? (JSON.parse(budgetLine) as { cacheBoundsBytes: number }).cacheBoundsBytes / (1024 * 1024)
      : Number.NaN;
    return {
      mode,
      v8Flags: v8Flags.join(' '),
      round,
      requests: sorted.length,
      failed,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      p999Ms: percentile(sorted, 0.999),
      maxMs: sorted.at(-1) ?? Number.NaN,
      fullCollections: pauses.length,
      pausesMs: pauses.reduce((sum, pause) => sum + pause, 0),
      longestPauseMs: Math.max(0, ...pauses),
      pausesOver250Ms: pauses.filter((pause) => pause > 250).length,
      scheduledCompactions,
      rssMiB,
      rssGrowthOverBounds: (rssMiB - rssAtStartMiB) / cacheBoundsMiB,
      rssGrowthAfterLastCollectionOverBounds:
        ((lastCollection?.rssMiB ?? Number.NaN) - rssAtStartMiB) / cacheBoundsMiB,
      rssGrowthAfterCollectionsMaxOverBounds:
        (Math.max(...windowCollections.map((entry) => entry.rssMiB)) - rssAtStartMiB) / cacheBoundsMiB,
      oldSpaceUsedMiB: lastCollection?.oldSpaceUsedMiB ?? Number.NaN,
      oldSpaceCommittedMiB: lastCollection?.oldSpaceCommittedMiB ?? Number.NaN,
      oldSpaceCommittedAfterEachMiB: windowCollections.map((entry) => Math.round(entry.oldSpaceCommittedMiB)),
      scavenges: windowScavenges.reduce((sum, entry) => sum + entry.count, 0),
      scavengePausesMs: windowScavenges.reduce((sum, entry) => sum + entry.durationMs, 0),
      longestScavengeMs: Math.max(0, ...windowScavenges.map((entry) => entry.longestMs)),
      newSpaceCommittedMiB: windowLines.at(-1)?.newSpaceCommittedMiB ?? Number.NaN,
      serverCpuSeconds,
      loadAverage: loadavg()
        .map((value) => value.toFixed(1))
        .join(', '),
    };
  } finally {
    await stop(child);
  }
}

const workDirectory = await mkdtemp(join(tmpdir(), 'compactor-ingest-heap-'));
const results: RunResult[] = [];
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const mode of modes) {
      for (const v8Flags of v8FlagSets) {
        const result = await measure(mode, v8Flags, round, workDirectory);
        process.stderr.write(`${JSON.stringify(result)}\n`);
        results.push(result);
      }
    }
  }
} finally {
  if (values['keep-logs']) process.stderr.write(`logs kept in ${workDirectory}\n`);
  else await rm(workDirectory, { recursive: true, force: true });
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
process.stdout.write(
  [
    `ingest under a churned heap: ${threadCount} threads seeded with ${seedMessages} messages, ${durationSeconds} s of appends (4 messages) and renders (every third request) from ${connections} connections${values.interval ? `, interval ${values.interval} s` : ''}`,
    '',
    '| mode | server V8 flags | round | requests (failed) | p50 | p99 | p99.9 | max | full collections (> 250 ms) | pauses in all / longest | scheduled compactions | server RSS at the end | RSS growth ÷ cache bounds: at the end, after the last full collection, largest after one | old space used / committed after the last full collection | old space committed after each full collection | scavenges: count, pauses in all / longest | young generation committed | server CPU | load average |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...results.map(
      (row) =>
        `| ${row.mode} | ${row.v8Flags || 'none'} | ${row.round + 1} | ${row.requests} (${row.failed}) | ${fixed(row.p50Ms)} ms | ${fixed(row.p99Ms)} ms | ${fixed(row.p999Ms)} ms | ${fixed(row.maxMs)} ms | ${row.fullCollections} (${row.pausesOver250Ms}) | ${fixed(row.pausesMs, 0)} / ${fixed(row.longestPauseMs, 0)} ms | ${row.scheduledCompactions} | ${fixed(row.rssMiB, 0)} MiB | ${fixed(row.rssGrowthOverBounds, 2)}, ${fixed(row.rssGrowthAfterLastCollectionOverBounds, 2)}, ${fixed(row.rssGrowthAfterCollectionsMaxOverBounds, 2)} | ${fixed(row.oldSpaceUsedMiB, 0)} / ${fixed(row.oldSpaceCommittedMiB, 0)} MiB | ${row.oldSpaceCommittedAfterEachMiB.join(', ')} MiB | ${row.scavenges}, ${fixed(row.scavengePausesMs, 0)} / ${fixed(row.longestScavengeMs, 1)} ms | ${fixed(row.newSpaceCommittedMiB, 0)} MiB | ${fixed(row.serverCpuSeconds)} s | ${row.loadAverage} |`,
    ),
    '',
  ].join('\n'),
);
