import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../src/bench/run-benchmarks.js';
import { runCli } from './support.js';

function expectPositive(value: number, what: string): void {
  expect(Number.isFinite(value), `${what} is finite`).toBe(true);
  expect(value, what).toBeGreaterThan(0);
}

function expectLatency(latency: { p50Ms: number; p99Ms: number; runs: number }, what: string): void {
  expectPositive(latency.p50Ms, `${what} p50`);
  expect(latency.p99Ms, `${what} p99`).toBeGreaterThanOrEqual(latency.p50Ms);
  expectPositive(latency.runs, `${what} runs`);
}

describe('compactor bench', () => {
  it('--quick --json reports every section with positive numbers and ratios', async () => {
    const { code, stdout, stderr } = await runCli(['bench', '--quick', '--json']);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as BenchReport;
    expect(report.quick).toBe(true);

    const { ingest, render, planning, tokenizer } = report;
    expect(ingest.http.map((run) => run.batchSize)).toEqual([1, 100]);
    expect(ingest.direct.map((run) => run.batchSize)).toEqual([1, 100]);
    for (const run of [...ingest.http, ...ingest.direct]) {
      expectPositive(run.events, `ingest events (batch ${run.batchSize})`);
      expectPositive(run.eventsPerSecond, `ingest events/s (batch ${run.batchSize})`);
    }
    for (const ratio of ingest.ratios)
      expectPositive(ratio.httpOverDirect, `ingest ratio ${ratio.batchSize}`);

    expectPositive(render.messages, 'render messages');
    expectPositive(render.planRecords, 'render plan records');
    expectPositive(render.renderedTokens, 'render tokens');
    expectLatency(render.ours, 'render ours');
    expectLatency(render.baseline, 'render baseline');
    expect(render.speedupP50).toBeCloseTo(render.baseline.p50Ms / render.ours.p50Ms, 6);

    expectPositive(planning.messages, 'planning messages');
    expectPositive(planning.records, 'planning records');
    expect(planning.tokensAfter).toBeLessThan(planning.tokensBefore);
    expectLatency(planning.ours, 'planning ours');
    expectLatency(planning.naive, 'planning naive');
    expectPositive(planning.targetOverP50, 'planning target ratio');
    expectPositive(planning.speedupOverNaiveP50, 'planning naive ratio');

    expect(tokenizer.backends.map((backend) => backend.backend).sort()).toEqual([
      'gpt-tokenizer',
      'js-tiktoken',
      'tiktoken-wasm',
    ]);
    for (const backend of tokenizer.backends) {
      expectPositive(backend.largeMBps, `${backend.backend} large MB/s`);
      expectPositive(backend.shortMBps, `${backend.backend} short MB/s`);
      expectPositive(backend.oursOverThisLarge, `${backend.backend} large ratio`);
      expectPositive(backend.oursOverThisShort, `${backend.backend} short ratio`);
      expect(backend.countsIdentical, `${backend.backend} counts`).toBe(true);
    }
  });

  it('prints readable tables without --json, naming the synthetic data when the corpus is absent', async () => {
    const { code, stdout, stderr } = await runCli(['bench', '--quick'], {
      COMPACTOR_CORPUS_DIR: '/nonexistent/compactor-corpus',
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('corpus absent');
    for (const heading of [
      '## Ingest throughput',
      '## Render',
      '## Planning latency',
      '## Tokenizer throughput',
    ]) {
      expect(stdout).toContain(heading);
    }
    expect(stdout).toContain('synthetic coding thread (corpus absent)');
    expect(stdout).toContain('built-in sample text (corpus absent)');
  });
});
