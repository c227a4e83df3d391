/**
 * Render after one append, many times in a row on one already-compacted synthetic thread, one line per
 * render: CPU, the recall report and the render cache's evictions and index builds. The scaling bench
 * renders 41 times per size and so cannot see what happens once a plan version's recall room is used
 * up (docs/BENCHMARKS.md "Idle re-measure, session 10": from about the 187th render at 100k messages
 * each render costs tens of milliseconds). Not a target of its own: the figure behind that finding.
 *
 *   pnpm --filter @compactor/cli exec tsx scripts/render-series.ts [messages=100000] [renders=200]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStores } from '@compactor/embedded';
import { createThreadFoldCache } from '@compactor/engine';
import { createRenderCache, renderPromptSync } from '@compactor/render';
import { benchBudget, benchSystem, benchTools } from '@compactor/render/bench';
import { tokenizerForThread } from '@compactor/tokenizer';
import { compactedPlan } from '../src/bench/scaling-benchmark.js';
import { appendInBatches, scalingAppendEvent, scalingThreadEvents } from '../src/bench/synthetic-thread.js';

const TENANT = 'bench';
// The scaling bench's thread: the same context window and the same 46 appends before timing.
const CONTEXT_WINDOW = 200_000;
const APPENDS_BEFORE = 46;

const messages = Number(process.argv[2] ?? 100_000);
const renders = Number(process.argv[3] ?? 200);
if (!Number.isInteger(messages) || messages < 100 || !Number.isInteger(renders) || renders < 1) {
  process.stderr.write('usage: render-series.ts [messages ≥ 100] [renders ≥ 1]\n');
  process.exit(2);
}

const dataDir = await mkdtemp(join(tmpdir(), 'compactor-render-series-'));
const stores = await createEmbeddedStores({ dataDir });
try {
  const threadId = `series-${messages}`;
  await appendInBatches(stores.events, TENANT, threadId, scalingThreadEvents(messages, CONTEXT_WINDOW));
  const thread = await createThreadFoldCache().load(stores.events, TENANT, threadId);
  await stores.plans.commit(TENANT, threadId, compactedPlan(thread), 0);
  let step = 0;
  const append = () => stores.events.append(TENANT, threadId, [scalingAppendEvent(messages * 10 + step++)]);
  for (let index = 0; index < APPENDS_BEFORE; index++) await append();
  const folds = createThreadFoldCache();
  const cache = createRenderCache();
  const tokenizer = tokenizerForThread(thread);
  process.stdout.write('render\tcpu ms\trecalled\trecall tokens\tallowance\tevictions\tindex builds\n');
  for (let render = 0; render < renders; render++) {
    await append();
    const current = await stores.plans.getCurrent(TENANT, threadId);
    const loaded = await folds.load(stores.events, TENANT, threadId, current.plan);
    const before = process.cpuUsage();
    const result = renderPromptSync({
      thread: loaded,
      plan: current.plan,
      system: benchSystem,
      tools: benchTools,
      budget: benchBudget,
      provider: 'anthropic',
      tokenizer,
      cache,
    });
    const used = process.cpuUsage(before);
    const recall = result.report.recall;
    const { evictions, recallIndexBuilds } = cache.stats;
    process.stdout.write(
      `${render}\t${((used.user + used.system) / 1000).toFixed(2)}\t${recall?.recalled.length ?? 0}\t${recall?.tokens ?? 0}\t${recall?.allowance ?? 0}\t${evictions}\t${recallIndexBuilds}\n`,
    );
  }
} finally {
  await stores.close();
  await rm(dataDir, { recursive: true, force: true });
}
