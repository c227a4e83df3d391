/**
 * Paired A/B of planning latency: the pi bench thread planned from scratch by this tree and by another
 * tree of the repository (BASE), alternating plan by plan in one process, with and without the embedded
 * artifact store, each side with its own planner, renderer, tokenizer and store. Every plan of both sides
 * must be the same bytes, or the run stops. On a shared machine, the paired ratio is the figure to read, and
 * the process's CPU time per plan (user + system, all threads) the least disturbed by other processes.
 *
 *   git archive <commit> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   for d in packages/* apps/*; do [ -d $d/node_modules ] && cp -a $d/node_modules /tmp/base/$d/; done
 *   BASE=/tmp/base ROUNDS=31 pnpm --filter @compactor/engine exec tsx bench/plan-ab.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as core from '@compactor/core';
import * as embedded from '@compactor/embedded';
import * as render from '@compactor/render';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { corpusAvailable } from '@compactor/testkit/corpus';
import { createTokenizer } from '@compactor/tokenizer';
import * as engine from '../src/index.js';
import { piThread } from './pi-thread.js';

if (!corpusAvailable('pi') || !process.env.BASE) {
  console.log(
    'skipped: needs the pi sessions of ../shared/corpus and BASE (a tree of the commit to compare)',
  );
  process.exit(0);
}
const base = process.env.BASE;
const rounds = Number(process.env.ROUNDS ?? 31);

interface Side {
  name: string;
  core: typeof core;
  engine: Pick<typeof engine, 'createRenderMeasurer'>;
  cache: render.RenderCache;
  tokenizer: core.Tokenizer;
  stores: Awaited<ReturnType<typeof embedded.createEmbeddedStores>>;
  dataDir: string;
}

const thread = await piThread(2000);
const target = core.availableForMessages(engine.threadBudget(thread));
const summarizer = createExtractiveSummarizer();

async function side(
  name: string,
  modules: { core: typeof core; embedded: typeof embedded; engine: typeof engine; render: typeof render },
): Promise<Side> {
  const dataDir = await mkdtemp(join(tmpdir(), 'plan-ab-'));
  return {
    name,
    core: modules.core,
    engine: modules.engine,
    cache: modules.render.createRenderCache(),
    tokenizer: createTokenizer({ model: thread.model }),
    stores: await modules.embedded.createEmbeddedStores({ dataDir }),
    dataDir,
  };
}

const sides = [
  await side('base', {
    core: await import(`${base}/packages/core/src/index.ts`),
    embedded: await import(`${base}/packages/embedded/src/index.ts`),
    engine: await import(`${base}/packages/engine/src/index.ts`),
    render: await import(`${base}/packages/render/src/index.ts`),
  }),
  await side('branch', { core, embedded, engine, render }),
] as const;

async function plan(of: Side, withStore: boolean): Promise<{ ms: number; cpuMs: number; bytes: string }> {
  const measurer = of.engine.createRenderMeasurer(thread, of.tokenizer, 'anthropic', of.cache);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcome = await of.core.planCompaction({
    thread,
    currentPlan: null,
    targetTokens: target,
    measure: measurer.measure,
    countMessage: measurer.countMessage,
    countText: measurer.countText,
    summarizer,
    now: '2025-01-01T00:00:00.000Z',
    ...(withStore ? { artifactStore: of.stores.artifacts } : {}),
  });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, bytes: core.stableStringify(outcome) };
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);
for (const withStore of [true, false]) {
  // The first plan of each side fills its render cache: not timed, but compared.
  const expected = (await plan(sides[0], withStore)).bytes;
  if ((await plan(sides[1], withStore)).bytes !== expected) throw new Error('the two trees plan differently');
  const times: [number[], number[]] = [[], []];
  const cpu: [number[], number[]] = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    for (const which of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const result = await plan(sides[which]!, withStore);
      if (result.bytes !== expected) throw new Error(`${sides[which]!.name} planned differently`);
      times[which]!.push(result.ms);
      cpu[which]!.push(result.cpuMs);
    }
  }
  const ratios = times[1].map((ms, index) => ms / times[0][index]!);
  const cpuRatios = cpu[1].map((ms, index) => ms / cpu[0][index]!);
  const figures = (values: number[]) =>
    `p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms`;
  console.log(
    `${withStore ? 'with the embedded artifact store' : 'without an artifact store'}: base ${figures(times[0])}; ` +
      `branch ${figures(times[1])}; paired ratio branch/base p50 ${percentile(ratios, 0.5).toFixed(2)} ` +
      `(${rounds} pairs, every plan the same bytes); CPU per plan p50 base ${percentile(cpu[0], 0.5).toFixed(1)} ms, ` +
      `branch ${percentile(cpu[1], 0.5).toFixed(1)} ms, paired ratio p50 ${percentile(cpuRatios, 0.5).toFixed(2)}`,
  );
}
console.log(`load average after: ${load()}`);
for (const each of sides) {
  await each.stores.close();
  await rm(each.dataDir, { recursive: true, force: true });
}
