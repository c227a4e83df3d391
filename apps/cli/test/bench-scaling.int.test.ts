import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompactingCheckBenchResult } from '../src/bench/compacting-check-benchmark.js';
import type { ScalingBenchResult } from '../src/bench/scaling-benchmark.js';
import { runCli } from './support.js';

describe('compactor bench --scaling (issue #18)', () => {
  it('--quick --json reports a row per size with the caches within their bounds, and writes the SVG chart', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'compactor-scaling-test-'));
    try {
      const chart = join(directory, 'scaling.svg');
      const { code, stdout, stderr } = await runCli([
        'bench',
        '--scaling',
        '--quick',
        '--json',
        '--chart',
        chart,
      ]);
      expect(code, stderr).toBe(0);
      const result = JSON.parse(stdout) as ScalingBenchResult;
      expect(result.rows.map((row) => row.messages)).toEqual([200, 1_000, 4_000]);
      for (const row of result.rows) {
        expect(row.planRecords).toBeGreaterThan(0);
        for (const latency of [row.check, row.checkRefolding, row.render, row.loadAndRender]) {
          expect(latency.p50Ms).toBeGreaterThan(0);
          expect(latency.p99Ms).toBeGreaterThanOrEqual(latency.p50Ms);
        }
        expect(row.check.runs).toBe(7);
        expect(row.checkRefolding.runs).toBe(2);
        expect(row.foldBytesPerMessage).toBeGreaterThan(0);
        expect(row.renderBytesPerMessage).toBeGreaterThan(0);
        // Small threads fit the default render cache: the recall index is built once and extended.
        expect(row.recallIndexBuilds).toBe(1);
      }
      // The fold keeps what the plan hides in compact form (ADR-0285): well under the ~2 KB a message held in full.
      expect(result.rows[2]!.foldBytesPerMessage).toBeLessThan(1_000);
      expect(result.checkP50Ratio).toBeCloseTo(result.rows[2]!.check.p50Ms / result.rows[0]!.check.p50Ms, 6);
      // The many-threads phase ran once per heap compaction mode, each in its own process (ADR-0355, ADR-0395, ADR-0425).
      expect(result.manyThreads.map((many) => many.heapCompaction)).toEqual([
        'every-full-gc',
        'when-over-bounds',
        'when-fragmented',
        'v8-default',
      ]);
      for (const many of result.manyThreads) {
        expect(many.threads).toBe(200);
        expect(many.foldCache.bytes).toBeLessThanOrEqual(many.foldCache.maxBytes);
        expect(many.renderCache.bytes).toBeLessThanOrEqual(many.renderCache.maxBytes);
        // The bounds are small enough that touching every thread had to evict.
        expect(many.foldCache.threads).toBeLessThan(many.threads);
        expect(many.renderCache.threads).toBeLessThan(many.threads);
        // Measured from a warmed, collected baseline: the heap grew by what the caches hold, not more.
        expect(many.heapUsedBeforeMiB).toBeGreaterThan(0);
        expect(many.heapGrowthOverBounds).toBeLessThanOrEqual(1);
        expect(many.heapCommittedAfterMiB).toBeGreaterThanOrEqual(many.heapUsedAfterMiB);
        // Linux splits the resident set; anonymous memory holds at least the committed heap.
        expect(many.rssAnonymousMiB!.after).toBeGreaterThan(many.heapUsedAfterMiB);
        expect(many.rssFileMiB!.after).toBeGreaterThan(0);
        expect(many.fullCollections.longestPauseMs).toBeLessThanOrEqual(many.fullCollections.totalPauseMs);
        if (many.heapCompaction === 'every-full-gc' || many.heapCompaction === 'v8-default')
          expect(many.scheduledCompactions).toBe(0);
        expect(many.rssAfterNextCollectionMiB).toBeGreaterThan(0);
      }
      const svg = await readFile(chart, 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg.match(/<polyline /g)).toHaveLength(4);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('--compacting times planning from the committed plan over the target, at the sizes asked (ADR-0325)', async () => {
    const { code, stdout, stderr } = await runCli([
      'bench',
      '--scaling',
      '--compacting',
      '--quick',
      '--json',
      '--messages',
      '200,1000',
    ]);
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout) as CompactingCheckBenchResult;
    expect(result.rows).toHaveLength(2);
    for (const row of result.rows) {
      // Appended over the target, so the check plans and compacts.
      expect(row.tokensBefore).toBeGreaterThan(row.target);
      expect(row.tokensAfter).toBeLessThanOrEqual(row.target);
      expect(row.status).toBe('compacted');
      expect(row.appended).toBeGreaterThan(0);
      expect(row.runs).toBe(7);
      expect(row.p99Ms).toBeGreaterThanOrEqual(row.p50Ms);
      expect(row.cpuP50Ms).toBeGreaterThan(0);
      expect(row.planHash).toMatch(/^[0-9a-f]{12}$/);
    }
    expect(result.p50RatioToFirst[0]).toBe(1);
  });

  it('--messages refuses sizes that are not whole numbers, before building anything', async () => {
    for (const sizes of ['1000,abc', '1000,,2000', '0']) {
      const { code, stderr } = await runCli(['bench', '--scaling', '--compacting', '--messages', sizes]);
      expect(code, sizes).not.toBe(0);
      expect(stderr).toContain('expected whole numbers of at least 1');
    }
  });
});
