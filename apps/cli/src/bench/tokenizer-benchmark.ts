import { defaultEncoderBackend } from '@compactor/tokenizer';
import {
  benchEncoding,
  benchWorstCase,
  corpusAvailable,
  loadBenchText,
  megabytes,
  sameCounts,
  type WorstCaseResult,
} from '@compactor/tokenizer/bench';
import type { BenchSizes } from './bench-sizes.js';

export interface BackendThroughput {
  backend: string;
  largeMBps: number;
  shortMBps: number;
  /** Our backend's MB/s over this one's (large strings / short strings). */
  oursOverThisLarge: number;
  oursOverThisShort: number;
  countsIdentical: boolean;
}

export interface TokenizerBenchResult {
  source: string;
  encoding: 'o200k_base';
  megabytes: number;
  ours: string;
  backends: BackendThroughput[];
  /** Bounded counting on the worst inputs beside ordinary text (ADR-0040). */
  worstCase: WorstCaseResult;
}

/** The tokenizer package's benchmark on o200k_base: every backend's MB/s, counts checked identical. */
export function benchTokenizer(sizes: BenchSizes['tokenizer']): TokenizerBenchResult {
  const texts = loadBenchText(sizes.bytesPerSource);
  const large = texts.map((text) => text.pieces.join('\n\n'));
  // First, while the encoder's merge cache has seen none of these texts.
  const worstCase = benchWorstCase(large, sizes.worstCase);
  const short = texts.flatMap((text) => text.pieces);
  const results = benchEncoding('o200k_base', large, short, sizes.repeats);
  const ours = results.find((result) => result.backend === defaultEncoderBackend)!;
  return {
    source: corpusAvailable
      ? texts.map((text) => text.source).join(', ')
      : 'built-in sample text (corpus absent)',
    encoding: 'o200k_base',
    megabytes: megabytes(large),
    ours: defaultEncoderBackend,
    backends: results.map((result) => ({
      backend: result.backend,
      largeMBps: result.largeMBps,
      shortMBps: result.shortMBps,
      oursOverThisLarge: ours.largeMBps / result.largeMBps,
      oursOverThisShort: ours.shortMBps / result.shortMBps,
      countsIdentical:
        sameCounts(result.largeCounts, ours.largeCounts) && sameCounts(result.shortCounts, ours.shortCounts),
    })),
    worstCase,
  };
}
