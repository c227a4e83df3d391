import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type CompactionPlan, systemClock, type Thread } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine, createThreadFoldCache, type ThreadFoldCache } from '@compactor/engine';
import { applyHeapCompaction, type HeapCompaction, heapCompactionSettingFrom } from '@compactor/ingest';
import { createRenderCache, type RenderCache, renderPromptSync } from '@compactor/render';
import { benchBudget, benchPlan, benchSystem, benchTools, percentile } from '@compactor/render/bench';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { tokenizerForThread } from '@compactor/tokenizer';
import type { Latency } from './render-benchmark.js';
import { appendInBatches, scalingAppendEvent, scalingThreadEvents } from './synthetic-thread.js';

/** How big the scaling run is: the thread sizes, samples per size, and the many-threads touch. */
export interface ScalingSizes {
  messages: number[];
  runs: number;
  /** Samples of the peer (whole log read and folded per call); fewer, it is slow at 100k. */
  peerRuns: number;
  manyThreads: {
    threads: number;
    messagesPerThread: number;
    foldCacheBytes: number;
    renderCacheBytes: number;
  };
}

export const fullScalingSizes: ScalingSizes = {
  messages: [1_000, 10_000, 100_000],
  runs: 41,
  peerRuns: 5,
  manyThreads: {
    threads: 10_000,
    messagesPerThread: 20,
    foldCacheBytes: 16 * 1024 * 1024,
    renderCacheBytes: 16 * 1024 * 1024,
  },
};

export const quickScalingSizes: ScalingSizes = {
  messages: [200, 1_000, 4_000],
  runs: 7,
  peerRuns: 2,
  manyThreads: {
    threads: 200,
    messagesPerThread: 8,
    foldCacheBytes: 256 * 1024,
    renderCacheBytes: 256 * 1024,
  },
};

/** One thread size, already compacted (50 records over all but the last 10 turns: summaries, externalizations, drops). */
export interface ScalingRow {
  messages: number;
  /** Plan records hiding the older history. */
  planRecords: number;
  /** The first check: the whole log read and folded, everything rendered and counted once. */
  coldCheckMs: number;
  /** `engine.check` after one appended event, the engine's fold cache and render cache warm. */
  check: Latency;
  /** Peer: the same check with a fold cache that keeps nothing (the log read and folded on every check). */
  checkRefolding: Latency;
  /** `renderPromptSync` after one appended event (thread extended, plan read again from the store). */
  render: Latency;
  /** What the prompt route does after one append: load the thread (fold cache), read the plan, render. */
  loadAndRender: Latency;
  /** Estimated bytes the fold cache holds for the thread, per message. */
  foldBytesPerMessage: number;
  /** Estimated bytes the render cache holds for the thread, per message. */
  renderBytesPerMessage: number;
  /**
   * Recall indexes the render cache built from nothing over the warm renders (1 = built once): more
   * means the thread's memo did not fit the cache's default bound and was shed and rebuilt.
   */
  recallIndexBuilds: number;
}

export interface ManyThreadsResult {
  /**
   * The heap compaction the phase ran under, set as the servers set it (ADR-0355), each mode in a
   * fresh process: `every-full-gc` is what `apps/ingest`, `apps/worker` and `compactor serve` run
   * by default, `v8-default` what a library user's process runs unless they set the flag.
   */
  heapCompaction: HeapCompaction;
  threads: number;
  messagesPerThread: number;
  /** Resident set size before touching any thread and after touching them all, MiB. */
  rssBeforeMiB: number;
  rssAfterMiB: number;
  heapUsedBeforeMiB: number;
  heapUsedAfterMiB: number;
  /**
   * The V8 heap's committed size (`heapTotal`) before and after, MiB: what the heap holds in pages,
   * used or not. Its growth beside heap used is old-space pages left partly used by what the caches
   * keep, which a full collection does not compact by default (ADR-0287).
   */
  heapCommittedBeforeMiB: number;
  heapCommittedAfterMiB: number;
  /**
   * The resident set split as Linux counts it (`/proc/self/status`), before and after, MiB:
   * anonymous memory (the heap's pages, malloc) and file-backed pages (the binary's code and data
   * touched, mapped files); undefined elsewhere.
   */
  rssAnonymousMiB?: { before: number; after: number };
  rssFileMiB?: { before: number; after: number };
  foldCache: { bytes: number; maxBytes: number; threads: number; evictions: number };
  renderCache: { bytes: number; maxBytes: number; threads: number; evictions: number };
  /** The embedded event store's own resident bound (ADR-0050), which also holds per-thread state. */
  storeCacheMaxBytes: number;
  /** RSS growth over the sum of the three caches' bounds: at most 1 means bounded by them. */
  growthOverBounds: number;
  /**
   * RSS after one more full collection than {@link rssAfterMiB}: a mode that decides after a full
   * collection (`when-over-bounds`, `when-fragmented`) compacts at the next one (ADR-0425).
   */
  rssAfterNextCollectionMiB: number;
  /** RSS growth after that next collection over the same bounds. */
  growthOverBoundsAfterNextCollection: number;
  /** Heap-used growth (after a collection) over the same bounds. */
  heapGrowthOverBounds: number;
  /** Heap-committed growth over the same bounds. */
  heapCommittedGrowthOverBounds: number;
  /**
   * The full (mark-compact) collections V8 ran on its own while the threads were touched (the
   * bench's forced ones excluded), from `perf_hooks` 'gc' entries: their count, pauses in all and
   * the longest pause, ms (ADR-0395).
   */
  fullCollections: { count: number; totalPauseMs: number; longestPauseMs: number };
  /**
   * Full collections run with `--compact-on-every-full-gc` turned on by `when-fragmented` (0 otherwise),
   * over the whole process: the warm-up and the bench's forced collections included.
   */
  scheduledCompactions: number;
}

export interface ScalingBenchResult {
  source: string;
  rows: ScalingRow[];
  /** Largest thread's check p50 over the smallest's (target ≤ 2). */
  checkP50Ratio: number;
  /** Largest thread's render p50 over the smallest's (target ≤ 2). */
  renderP50Ratio: number;
  /** Render p50 at the size nearest 10,000 messages (target ≤ 1 ms). */
  renderP50At10k: { messages: number; p50Ms: number };
  /** The many-threads phase once per heap compaction mode, the servers' default first. */
  manyThreads: ManyThreadsResult[];
}

/** Runs the many-threads phase under one heap compaction mode, in a process of its own. */
export type ManyThreadsRunner = (
  heapCompaction: HeapCompaction,
  sizes: ScalingSizes['manyThreads'],
) => Promise<ManyThreadsResult>;

/** The modes the bench compares: the worker's default, the ingest's, the ingest's before it, then V8's default (ADR-0395, ADR-0425). */
export const MANY_THREADS_HEAP_MODES: readonly HeapCompaction[] = [
  'every-full-gc',
  'when-over-bounds',
  'when-fragmented',
  'v8-default',
];

const TENANT = 'bench';
const CONTEXT_WINDOW = 200_000;
const STORE_CACHE_BYTES = 32 * 1024 * 1024;
const MiB = 1024 * 1024;

function latency(samples: number[]): Latency {
  return { p50Ms: percentile(samples, 0.5), p99Ms: percentile(samples, 0.99), runs: samples.length };
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/**
 * Issue #18's scaling curve: for coding-agent threads of each size, already compacted, the latency of a
 * compaction check and of a render after one appended event (each beside the peer that re-reads and
 * re-folds the log), the memory a warm thread holds per message, and the RSS after touching many
 * threads against the caches' byte bounds. Everything on the embedded stores in a temporary directory.
 *
 * @param sizes - Thread sizes, samples and the many-threads workload.
 * @param runManyThreads - Runs the many-threads phase under a heap compaction mode in a fresh process
 *   (V8's flags are process-wide and a process keeps the pages an earlier run left).
 * @returns One row per size, the ratios the issue sets targets for, and the many-threads figures.
 */
export async function benchScaling(
  sizes: ScalingSizes,
  runManyThreads: ManyThreadsRunner,
): Promise<ScalingBenchResult> {
  // The many-threads phase first, each mode from a fresh process's collected heap: after a
  // 100,000-message thread a baseline held that thread's garbage and RSS fell during the phase.
  const manyThreads: ManyThreadsResult[] = [];
  for (const mode of MANY_THREADS_HEAP_MODES) manyThreads.push(await runManyThreads(mode, sizes.manyThreads));
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-scaling-'));
  const stores = await createEmbeddedStores({ dataDir });
  try {
    const rows: ScalingRow[] = [];
    for (const messages of sizes.messages) rows.push(await benchSize(stores, messages, sizes));
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const near10k = rows.reduce((best, row) =>
      Math.abs(row.messages - 10_000) < Math.abs(best.messages - 10_000) ? row : best,
    );
    return {
      source: 'synthetic coding-agent threads (short messages, 5% large tool results), embedded stores',
      rows,
      checkP50Ratio: last.check.p50Ms / first.check.p50Ms,
      renderP50Ratio: last.render.p50Ms / first.render.p50Ms,
      renderP50At10k: { messages: near10k.messages, p50Ms: near10k.render.p50Ms },
      manyThreads,
    };
  } finally {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type Stores = Awaited<ReturnType<typeof createEmbeddedStores>>;

async function benchSize(stores: Stores, messages: number, sizes: ScalingSizes): Promise<ScalingRow> {
  const threadId = `scaling-${messages}`;
  await appendInBatches(stores.events, TENANT, threadId, scalingThreadEvents(messages, CONTEXT_WINDOW));
  const folds = createThreadFoldCache();
  const thread = await folds.load(stores.events, TENANT, threadId);
  const plan = compactedPlan(thread);
  await stores.plans.commit(TENANT, threadId, plan, 0);
  const summarizer = createExtractiveSummarizer();
  const engine = createCompactionEngine({ ...stores, summarizer, clock: systemClock, folds });
  const refolding = createCompactionEngine({
    ...stores,
    summarizer,
    clock: systemClock,
    folds: createThreadFoldCache({ maxBytes: 0 }),
  });
  const cold = await timed(() => engine.check(TENANT, threadId));
  if (cold.value.commit.status === 'committed') {
    throw new Error(`the ${messages}-message bench thread was not compacted enough to stay quiet`);
  }
  await refolding.check(TENANT, threadId);

  let step = 0;
  const append = () => stores.events.append(TENANT, threadId, [scalingAppendEvent(messages * 10 + step++)]);
  const check: number[] = [];
  const checkRefolding: number[] = [];
  for (let run = 0; run < sizes.runs; run += 1) {
    await append();
    check.push((await timed(() => engine.check(TENANT, threadId))).ms);
    if (run < sizes.peerRuns) {
      await append();
      checkRefolding.push((await timed(() => refolding.check(TENANT, threadId))).ms);
    }
  }

  // The prompt route's path, with its own caches (as the ingest keeps them).
  const routeFolds = createThreadFoldCache();
  const cache = createRenderCache();
  const tokenizer = tokenizerForThread(thread);
  const renderOnce = async (renderCache: RenderCache, routeFoldCache: ThreadFoldCache) => {
    // The prompt route's order: the plan first, so the fold keeps what it hides compact (ADR-0285).
    const current = await stores.plans.getCurrent(TENANT, threadId);
    const loaded = await routeFoldCache.load(stores.events, TENANT, threadId, current.plan);
    const started = performance.now();
    renderPromptSync({
      thread: loaded,
      plan: current.plan,
      system: benchSystem,
      tools: benchTools,
      budget: benchBudget,
      provider: 'anthropic',
      tokenizer,
      cache: renderCache,
    });
    return performance.now() - started;
  };
  await renderOnce(cache, routeFolds);
  const render: number[] = [];
  const loadAndRender: number[] = [];
  for (let run = 0; run < sizes.runs; run += 1) {
    await append();
    const whole = await timed(() => renderOnce(cache, routeFolds));
    render.push(whole.value);
    loadAndRender.push(whole.ms);
  }
  const held = thread.messages.length;
  return {
    messages: held,
    planRecords:
      plan.summarizations.length + plan.externalizations.length + plan.clearings.length + plan.drops.length,
    coldCheckMs: cold.ms,
    check: latency(check),
    checkRefolding: latency(checkRefolding),
    render: latency(render),
    loadAndRender: latency(loadAndRender),
    foldBytesPerMessage: routeFolds.stats.bytes / held,
    renderBytesPerMessage: cache.stats.bytes / held,
    recallIndexBuilds: cache.stats.recallIndexBuilds,
  };
}

/**
 * The render bench's 50-record plan over all but the last 10 turns, with its clear records made drops:
 * a cleared span keeps every message but the tool output, so a quarter of a 100,000-message history
 * would stay in the prompt, which no compacted thread that fits its window does.
 */
export function compactedPlan(thread: Thread): CompactionPlan {
  const plan = benchPlan(thread);
  return {
    ...plan,
    clearings: [],
    drops: [
      ...plan.drops,
      ...plan.clearings.map((record) => ({
        kind: 'drop' as const,
        span: record.span,
        reason: 'older tool output',
      })),
    ],
  };
}

/** Append `count` threads of `messagesPerThread` messages and load and render each once. */
async function touchThreads(
  stores: Stores,
  prefix: string,
  count: number,
  messagesPerThread: number,
  folds: ThreadFoldCache,
  cache: RenderCache,
): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const threadId = `${prefix}-${index}`;
    await stores.events.append(TENANT, threadId, scalingThreadEvents(messagesPerThread, CONTEXT_WINDOW));
    const thread = await folds.load(stores.events, TENANT, threadId);
    renderPromptSync({
      thread,
      plan: null,
      system: benchSystem,
      tools: benchTools,
      budget: benchBudget,
      provider: 'anthropic',
      tokenizer: tokenizerForThread(thread),
      cache,
    });
  }
}

/** `gc()`, exposed for this process if it was not started with `--expose-gc`, so RSS is read after a collection. */
function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * The many-threads phase alone, on its own embedded stores in a temporary directory, in this process
 * under the heap compaction mode given (applied as the servers apply it). Run it in a fresh process
 * per mode (`manyThreadsInFreshProcess`), so neither run starts from the other's pages.
 *
 * @param heapCompaction - The mode, applied to this process first (`when-fragmented`'s interval:
 *   COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS, as the servers read it).
 * @param sizes - The many-threads workload.
 * @returns RSS, heap and cache figures before and after touching every thread.
 */
export async function benchManyThreads(
  heapCompaction: HeapCompaction,
  sizes: ScalingSizes['manyThreads'],
): Promise<ManyThreadsResult> {
  // The mode given; when-fragmented's interval from COMPACTOR_HEAP_COMPACTION_INTERVAL_SECONDS as the servers read it.
  const heap = applyHeapCompaction(
    heapCompactionSettingFrom({ ...process.env, COMPACTOR_HEAP_COMPACTION: heapCompaction }, heapCompaction),
  );
  let scheduledCompactions = 0;
  heap.onEvent((event) => {
    if (event.kind === 'compacted') scheduledCompactions += 1;
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-many-threads-'));
  const stores = await createEmbeddedStores({ dataDir });
  try {
    // Its budget counts from the warmed-up heap, as a server's counts from the heap it has once ready.
    const touched = await touchManyThreads(stores, sizes, (bounds) => heap.setBudget(bounds));
    return { heapCompaction, ...touched, scheduledCompactions };
  } finally {
    heap.stop();
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * `process.memoryUsage()` once a collection's freed pages are back with the system: V8 unmaps them on
 * a background thread after `gc()` returns, so a reading taken at once still counts some of them (at
 * 10,000 threads with compaction, RSS growth read at once was 205 MiB, in the same process a moment
 * later 2 MiB; ADR-0355). Waits 500 ms, then until RSS moves by less than 1 MiB in 250 ms, at most
 * 5 s (V8's memory reducer, which would collect on its own, waits longer).
 */
async function settledMemoryUsage(): Promise<NodeJS.MemoryUsage> {
  await sleep(500);
  let previous = process.memoryUsage();
  for (let waited = 500; waited < 5_000; waited += 250) {
    await sleep(250);
    const current = process.memoryUsage();
    if (Math.abs(current.rss - previous.rss) < MiB) return current;
    previous = current;
  }
  return previous;
}

/** Anonymous and file-backed resident memory from `/proc/self/status` (Linux), MiB; undefined elsewhere. */
async function residentSplit(): Promise<{ anonymousMiB: number; fileMiB: number } | undefined> {
  try {
    const status = await readFile('/proc/self/status', 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const anonymous = kib('RssAnon');
    const file = kib('RssFile');
    if (!Number.isFinite(anonymous) || !Number.isFinite(file)) return undefined;
    return { anonymousMiB: anonymous / 1024, fileMiB: file / 1024 };
  } catch {
    return undefined;
  }
}

async function touchManyThreads(
  stores: Stores,
  sizes: ScalingSizes['manyThreads'],
  warmedUp: (cacheBoundsBytes: number) => void,
): Promise<Omit<ManyThreadsResult, 'heapCompaction' | 'scheduledCompactions'>> {
  const folds = createThreadFoldCache({ maxBytes: sizes.foldCacheBytes });
  const cache = createRenderCache({ maxBytes: sizes.renderCacheBytes });
  const collect = garbageCollector();
  // Warm up first, with caches thrown away: the tokenizer's tables, the stores' and the renderer's
  // code and the JIT are loaded once per process and are not what the caches hold.
  await touchThreads(
    stores,
    'warm-up',
    20,
    sizes.messagesPerThread,
    createThreadFoldCache(),
    createRenderCache(),
  );
  collect();
  const bounds = sizes.foldCacheBytes + sizes.renderCacheBytes + STORE_CACHE_BYTES;
  warmedUp(bounds);
  const before = await settledMemoryUsage();
  const residentBefore = await residentSplit();
  const rssBefore = before.rss;
  const pauses: number[] = [];
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        pauses.push(entry.duration);
  });
  collections.observe({ entryTypes: ['gc'] });
  await touchThreads(stores, 'many', sizes.threads, sizes.messagesPerThread, folds, cache);
  // Entries reach the observer after a collection ends: let the last ones in before stopping.
  await sleep(50);
  collections.disconnect();
  collect();
  const memory = await settledMemoryUsage();
  const residentAfter = await residentSplit();
  // A mode that decides after a full collection (when-over-bounds, when-fragmented) compacts at the
  // next one: a second reading shows where that one leaves RSS (ADR-0425).
  collect();
  const afterNext = await settledMemoryUsage();
  const fold = folds.stats;
  const render = cache.stats;
  return {
    threads: sizes.threads,
    messagesPerThread: sizes.messagesPerThread,
    rssBeforeMiB: rssBefore / MiB,
    rssAfterMiB: memory.rss / MiB,
    heapUsedBeforeMiB: before.heapUsed / MiB,
    heapUsedAfterMiB: memory.heapUsed / MiB,
    heapCommittedBeforeMiB: before.heapTotal / MiB,
    heapCommittedAfterMiB: memory.heapTotal / MiB,
    ...(residentBefore && residentAfter
      ? {
          rssAnonymousMiB: { before: residentBefore.anonymousMiB, after: residentAfter.anonymousMiB },
          rssFileMiB: { before: residentBefore.fileMiB, after: residentAfter.fileMiB },
        }
      : {}),
    foldCache: {
      bytes: fold.bytes,
      maxBytes: fold.maxBytes,
      threads: fold.threads,
      evictions: fold.evictions,
    },
    renderCache: {
      bytes: render.bytes,
      maxBytes: render.maxBytes,
      threads: render.threads,
      evictions: render.evictions,
    },
    storeCacheMaxBytes: STORE_CACHE_BYTES,
    growthOverBounds: Math.max(0, memory.rss - rssBefore) / bounds,
    rssAfterNextCollectionMiB: afterNext.rss / MiB,
    growthOverBoundsAfterNextCollection: Math.max(0, afterNext.rss - rssBefore) / bounds,
    heapGrowthOverBounds: Math.max(0, memory.heapUsed - before.heapUsed) / bounds,
    heapCommittedGrowthOverBounds: Math.max(0, memory.heapTotal - before.heapTotal) / bounds,
    fullCollections: {
      count: pauses.length,
      totalPauseMs: pauses.reduce((sum, pause) => sum + pause, 0),
      longestPauseMs: Math.max(0, ...pauses),
    },
  };
}
