/**
 * Planning latency: `pnpm --filter @compactor/engine bench`.
 * A ~2,000-message thread built from the pi sessions, planned from scratch with the extractive
 * summarizer and the embedded artifact store, measured with the real renderer and tokenizer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactStore } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { corpusAvailable } from '@compactor/testkit/corpus';
import { createTokenizer } from '@compactor/tokenizer';
import { createRenderMeasurer } from '../src/index.js';
import { piThread } from './pi-thread.js';
import { measurePlanningLatency } from './planning-latency.js';

if (!corpusAvailable('pi')) {
  console.log('skipped: the pi sessions of ../shared/corpus are not here (set COMPACTOR_CORPUS_DIR)');
  process.exit(0);
}

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const thread = await piThread(2000);
const tokenizer = createTokenizer({ model: thread.model });
const dataDir = await mkdtemp(join(tmpdir(), 'compactor-plan-bench-'));
const stores = await createEmbeddedStores({ dataDir });
const summarizer = createExtractiveSummarizer();

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/**
 * A new, empty embedded store for every plan: each put writes its content and metadata, as a check's puts of
 * results not externalized before do. The shared store above knows every output after the first plan and answers
 * their puts from memory (ADR-0345); this is the figure that memo cannot help.
 */
async function newStorePerPlan(): Promise<{
  store: ArtifactStore;
  open: () => Promise<void>;
  close: () => Promise<void>;
}> {
  let current: { stores: EmbeddedStores; dataDir: string } | undefined;
  const close = async () => {
    if (!current) return;
    await current.stores.close();
    await rm(current.dataDir, { recursive: true, force: true });
    current = undefined;
  };
  const open = async () => {
    await close();
    const freshDir = await mkdtemp(join(tmpdir(), 'compactor-plan-bench-new-'));
    current = { stores: await createEmbeddedStores({ dataDir: freshDir }), dataDir: freshDir };
  };
  const store: ArtifactStore = {
    put: (content, metadata) => current!.stores.artifacts.put(content, metadata),
    getMetadata: (artifactId, context) => current!.stores.artifacts.getMetadata(artifactId, context),
    retrieve: (artifactId, context) => current!.stores.artifacts.retrieve(artifactId, context),
    listAudit: (tenantId, artifactId) => current!.stores.artifacts.listAudit(tenantId, artifactId),
  };
  return { store, open, close };
}

async function run(label: string, artifacts: 'shared' | 'new per plan' | 'none') {
  const perPlan = artifacts === 'new per plan' ? await newStorePerPlan() : undefined;
  const { coldMs, samples, target, last } = await measurePlanningLatency({
    thread,
    tokenizer,
    summarizer,
    runs: artifacts === 'new per plan' ? Math.min(RUNS, 7) : RUNS,
    ...(artifacts === 'shared' ? { artifactStore: stores.artifacts } : {}),
    ...(perPlan ? { artifactStore: perPlan.store, beforeEachPlan: perPlan.open } : {}),
  });
  await perPlan?.close();
  // The first run fills the render cache (per-message counts); report it apart.
  console.log(`${label}: cold first plan ${coldMs.toFixed(1)} ms`);
  console.log(
    `${label}: p50 ${percentile(samples, 0.5).toFixed(1)} ms, p99 ${percentile(samples, 0.99).toFixed(1)} ms over ${samples.length} plans` +
      ` (${last.tokensBefore} → ${last.tokensAfter} tokens, target ${target}, rungs ${last.rungsUsed.join(', ')}, ${last.added.length} records)`,
  );
  return percentile(samples, 0.5);
}

const messageTokens = createRenderMeasurer(thread, tokenizer, 'anthropic').measure(null);
console.log(
  `thread: ${thread.messages.length} messages, ${messageTokens} message tokens (anthropic), ${thread.messages.at(-1)!.turn} turns`,
);
const withStore = await run('ladder with embedded artifact store', 'shared');
await run('ladder with a new embedded artifact store per plan (every put writes)', 'new per plan');
const withoutStore = await run('ladder without artifact store (summarize, clear, drop)', 'none');
// Issue #18: planning the 2,000-message thread from scratch, p50 ≤ 25 ms with the store (as run by default).
console.log(
  `target: p50 ≤ 25 ms with the store → ${withStore <= 25 ? 'met' : 'NOT met'} (without: ${withoutStore.toFixed(1)} ms)`,
);
await stores.close();
await rm(dataDir, { recursive: true, force: true });
