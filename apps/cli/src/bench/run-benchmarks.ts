import { corpusAvailable, corpusDirectory } from '@compactor/render/bench';
import { fullSizes, quickSizes } from './bench-sizes.js';
import { benchIngest, type IngestBenchResult } from './ingest-benchmark.js';
import { benchPlanning, type PlanningBenchResult } from './planning-benchmark.js';
import { benchRender, type RenderBenchResult } from './render-benchmark.js';
import { benchTokenizer, type TokenizerBenchResult } from './tokenizer-benchmark.js';

export interface BenchReport {
  node: string;
  quick: boolean;
  corpusDirectory: string;
  /** False: every section ran on built-in synthetic text and threads (each section's `source` says). */
  corpusAvailable: boolean;
  seconds: number;
  ingest: IngestBenchResult;
  render: RenderBenchResult;
  planning: PlanningBenchResult;
  tokenizer: TokenizerBenchResult;
}

/** Every section in one run, one after the other so they do not compete for the CPU. */
export async function runBenchmarks(options: {
  quick: boolean;
  onSection?: (name: string) => void;
}): Promise<BenchReport> {
  const sizes = options.quick ? quickSizes : fullSizes;
  const started = performance.now();
  options.onSection?.('ingest');
  const ingest = await benchIngest(sizes.ingest);
  options.onSection?.('render');
  const render = benchRender(sizes.render);
  options.onSection?.('planning');
  const planning = await benchPlanning(sizes.planning);
  options.onSection?.('tokenizer');
  const tokenizer = benchTokenizer(sizes.tokenizer);
  return {
    node: process.version,
    quick: options.quick,
    corpusDirectory,
    corpusAvailable,
    seconds: (performance.now() - started) / 1000,
    ingest,
    render,
    planning,
    tokenizer,
  };
}
