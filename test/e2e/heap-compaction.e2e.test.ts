import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppProcess, startApp } from './app-process.js';

/**
 * The ingest process (`apps/ingest/src/main.ts`, as `pnpm start` runs it) sets the V8 heap compaction
 * its configuration names before anything else (ADR-0355; its default is when-over-bounds, ADR-0425), and
 * once listening measures its heap budget; the worker's own is tested in apps/worker.
 */
describe('the ingest process applies COMPACTOR_HEAP_COMPACTION at start', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startIngest(environment: Record<string, string>): Promise<AppProcess> {
    const dataDir = await mkdtemp(join(tmpdir(), 'compactor-ingest-heap-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const ingest = startApp('apps/ingest/src/main.ts', {
      COMPACTOR_DATA_DIR: dataDir,
      COMPACTOR_API_KEYS: 'key=tenant',
      PORT: '0',
      ...environment,
    });
    cleanups.push(() => ingest.stop('SIGKILL'));
    return ingest;
  }

  it.each([
    [{}, 'when-over-bounds', []],
    [{ COMPACTOR_HEAP_COMPACTION: 'when-fragmented' }, 'when-fragmented', []],
    [{ COMPACTOR_HEAP_COMPACTION: 'every-full-gc' }, 'every-full-gc', ['--compact-on-every-full-gc']],
    [{ COMPACTOR_HEAP_COMPACTION: 'v8-default' }, 'v8-default', []],
  ])('with %j it starts with %s and sets %j', async (environment, mode, flags) => {
    const ingest = await startIngest(environment);
    const starting = await ingest.waitForLog((line) => line.msg === 'starting ingest', 'its start');
    expect(starting.heapCompaction).toBe(mode);
    expect(starting.v8Flags).toEqual(flags);
    await ingest.waitForLog((line) => /listening/i.test(String(line.msg)), 'that it listens');
    // The budget counts from the heap once ready, plus every cache's bound: the ingest's render and fold
    // caches, the in-process engine's, and the embedded event store's (4 × 64 MiB + 32 MiB).
    const budget = await ingest.waitForLog((line) => line.msg === 'heap budget', 'its heap budget');
    expect(budget.cacheBoundsBytes).toBe(4 * 64 * 1024 * 1024 + 32 * 1024 * 1024);
    expect(budget.baselineBytes).toBeGreaterThan(0);
    expect(budget.budgetBytes).toBe(Number(budget.baselineBytes) + Number(budget.cacheBoundsBytes));
    expect((await ingest.stop()).code, ingest.output()).toBe(0);
  });

  it('refuses an unknown mode at start, naming the variable', async () => {
    const ingest = await startIngest({ COMPACTOR_HEAP_COMPACTION: 'sometimes' });
    expect((await ingest.exited).code).not.toBe(0);
    expect(ingest.output()).toContain('COMPACTOR_HEAP_COMPACTION');
  });
});
