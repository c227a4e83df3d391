/**
 * CPU per plan: `pnpm --filter @compactor/engine bench:cpu` (MODES, RUNS to choose).
 * The plan bench's thread planned from scratch, the store variants interleaved plan by plan in one process, each plan
 * timed by wall clock and by `process.cpuUsage()` (this thread and libuv's pool: hashing, file writes, fsyncs).
 * On a loaded machine the wall clock mostly measures the other processes; the CPU a plan costs barely moves.
 * - `store`: one embedded artifact store for every plan (from the second plan on it holds every output, ADR-0345);
 * - `instant`: an in-memory store deriving the same ids, which costs nothing but the hashing: the ladder's own work;
 * - `none`: no artifact store (no externalize rung);
 * - `new`: a new, empty embedded store for each plan: every put writes content and metadata (run after the others).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type ArtifactMetadata,
  type ArtifactMetadataInput,
  type ArtifactStore,
  artifactIdFor,
  availableForMessages,
  planCompaction,
} from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createRenderCache } from '@compactor/render';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { corpusAvailable } from '@compactor/testkit/corpus';
import { createTokenizer } from '@compactor/tokenizer';
import { createRenderMeasurer, threadBudget } from '../src/index.js';
import { piThread } from './pi-thread.js';

if (!corpusAvailable('pi')) {
  console.log('skipped: the pi sessions of ../shared/corpus are not here (set COMPACTOR_CORPUS_DIR)');
  process.exit(0);
}

type Mode = 'store' | 'instant' | 'none' | 'new';
const MODES = (process.env.MODES ?? 'store,instant,none,new').split(',') as Mode[];
const RUNS = Number(process.env.RUNS ?? 15);

const thread = await piThread(2000);
const tokenizer = createTokenizer({ model: thread.model });
const target = availableForMessages(threadBudget(thread));
const cache = createRenderCache();
const summarizer = createExtractiveSummarizer();
const dataDir = await mkdtemp(join(tmpdir(), 'compactor-plan-cpu-'));
const shared = await createEmbeddedStores({ dataDir });

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const instantStore: Pick<ArtifactStore, 'put'> = {
  async put(content: string, input: ArtifactMetadataInput): Promise<ArtifactMetadata> {
    const sha256 = sha256Hex(content);
    return {
      ...input,
      artifactId: artifactIdFor(input.tenantId, sha256, sha256Hex),
      sha256,
      sizeBytes: Buffer.byteLength(content),
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: undefined,
    };
  },
};

async function planOnce(mode: Mode): Promise<{ wallMs: number; cpuMs: number; planned: string }> {
  let fresh: { stores: EmbeddedStores; dataDir: string } | undefined;
  if (mode === 'new') {
    const freshDir = await mkdtemp(join(tmpdir(), 'compactor-plan-cpu-new-'));
    fresh = { stores: await createEmbeddedStores({ dataDir: freshDir }), dataDir: freshDir };
  }
  const store =
    mode === 'store'
      ? shared.artifacts
      : mode === 'instant'
        ? (instantStore as ArtifactStore)
        : fresh?.stores.artifacts;
  const measurer = createRenderMeasurer(thread, tokenizer, 'anthropic', cache);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const outcome = await planCompaction({
    thread,
    currentPlan: null,
    targetTokens: target,
    measure: measurer.measure,
    countMessage: measurer.countMessage,
    countText: measurer.countText,
    summarizer,
    now: '2025-01-01T00:00:00.000Z',
    ...(store ? { artifactStore: store } : {}),
  });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (fresh) {
    await fresh.stores.close();
    await rm(fresh.dataDir, { recursive: true, force: true });
  }
  const planned = `${outcome.tokensAfter} tokens, ${outcome.added.length} records`;
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, planned };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const samples = new Map(
  MODES.map((mode) => [mode, { wall: [] as number[], cpu: [] as number[], planned: '' }]),
);
async function sample(mode: Mode, round: number): Promise<void> {
  const { wallMs, cpuMs, planned } = await planOnce(mode);
  if (round === 0) return;
  const taken = samples.get(mode)!;
  taken.wall.push(wallMs);
  taken.cpu.push(cpuMs);
  taken.planned = planned;
}
// Round 0 warms the render cache and the shared store; then every mode plans once per round, in turn. A new store's
// plans run apart, after: the garbage and file work they leave would be charged to whichever plan came next.
const interleaved = MODES.filter((mode) => mode !== 'new');
for (let round = 0; round <= RUNS; round += 1) {
  for (const mode of interleaved) await sample(mode, round);
}
if (MODES.includes('new')) for (let round = 0; round <= RUNS; round += 1) await sample('new', round);
for (const [mode, { wall, cpu, planned }] of samples) {
  console.log(
    `${mode.padEnd(8)} p50 CPU ${median(cpu).toFixed(1)} ms, p50 wall ${median(wall).toFixed(1)} ms over ${RUNS} plans (${planned})`,
  );
}
await shared.close();
await rm(dataDir, { recursive: true, force: true });
