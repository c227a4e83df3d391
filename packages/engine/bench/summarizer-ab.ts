/**
 * The extractive summarizer alone on the spans the pi bench's plan (with the embedded store) asks it for, paired:
 * this tree's summarizer and another tree's (BASE), alternating span set by span set in one process, CPU time per
 * plan's worth of summarizing. Every summary of both sides must be the same bytes, or the run stops (issue #18,
 * ADR-0405). Without BASE, this tree's summarizer alone is timed. Make BASE as `plan-ab.ts`'s header says.
 *
 *   BASE=/tmp/base ROUNDS=41 pnpm --filter @compactor/engine exec tsx bench/summarizer-ab.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  availableForMessages,
  planCompaction,
  type SummarizeRequest,
  stableStringify,
} from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createRenderCache } from '@compactor/render';
import * as summarizerModule from '@compactor/summarizer';
import { corpusAvailable } from '@compactor/testkit/corpus';
import { createTokenizer } from '@compactor/tokenizer';
import { createRenderMeasurer, threadBudget } from '../src/index.js';
import { piThread } from './pi-thread.js';

if (!corpusAvailable('pi')) {
  console.log('skipped: the pi sessions of ../shared/corpus are not here (set COMPACTOR_CORPUS_DIR)');
  process.exit(0);
}
const rounds = Number(process.env.ROUNDS ?? 41);

// The requests one plan with the store makes, captured from a real plan.
const thread = await piThread(2000);
const tokenizer = createTokenizer({ model: thread.model });
const dataDir = await mkdtemp(join(tmpdir(), 'summarizer-ab-'));
const stores = await createEmbeddedStores({ dataDir });
const branch = summarizerModule.createExtractiveSummarizer();
const requests: SummarizeRequest[] = [];
const measurer = createRenderMeasurer(thread, tokenizer, 'anthropic', createRenderCache());
await planCompaction({
  thread,
  currentPlan: null,
  targetTokens: availableForMessages(threadBudget(thread)),
  measure: measurer.measure,
  countMessage: measurer.countMessage,
  countText: measurer.countText,
  summarizer: {
    ...branch,
    summarize(request) {
      requests.push(request);
      return branch.summarize(request);
    },
  },
  now: '2025-01-01T00:00:00.000Z',
  artifactStore: stores.artifacts,
});
await stores.close();
await rm(dataDir, { recursive: true, force: true });

type Extract = (request: SummarizeRequest) => unknown;
const sides: Array<{ name: string; extract: Extract }> = [{ name: 'branch', extract: branch.extract }];
if (process.env.BASE) {
  const baseModule: typeof summarizerModule = await import(
    `${process.env.BASE}/packages/summarizer/src/index.ts`
  );
  sides.unshift({ name: 'base', extract: baseModule.createExtractiveSummarizer().extract });
}
const expected = requests.map((request) => stableStringify(sides[0]!.extract(request)));
for (const side of sides.slice(1))
  requests.forEach((request, index) => {
    if (stableStringify(side.extract(request)) !== expected[index])
      throw new Error(`${side.name} summarizes request ${index} differently`);
  });

function runAll(extract: Extract): number {
  const cpu = process.cpuUsage();
  for (const request of requests) extract(request);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}
const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(
  `${requests.length} requests (${requests.map((request) => request.messages.length).join(', ')} messages); load ${load()}`,
);
const cpu = sides.map(() => [] as number[]);
const wall = sides.map(() => [] as number[]);
for (let round = 0; round <= rounds; round += 1) {
  const order = round % 2 === 0 ? sides.keys() : [...sides.keys()].reverse();
  for (const which of order) {
    const started = performance.now();
    const cpuMs = runAll(sides[which]!.extract);
    if (round === 0) continue; // warm-up
    wall[which]!.push(performance.now() - started);
    cpu[which]!.push(cpuMs);
  }
}
for (const [which, side] of sides.entries())
  console.log(
    `${side.name}: CPU p50 ${median(cpu[which]!).toFixed(2)} ms, wall p50 ${median(wall[which]!).toFixed(2)} ms per plan's summaries`,
  );
if (sides.length === 2) {
  const ratios = cpu[1]!.map((ms, index) => ms / cpu[0]![index]!);
  console.log(
    `paired CPU ratio branch/base p50 ${median(ratios).toFixed(2)} (${rounds} pairs); load ${load()}`,
  );
}
