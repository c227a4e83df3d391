/** What `compactor bench` reuses from this package's benchmarks (`@compactor/tokenizer/bench`). */

export { type BenchText, corpusAvailable, loadBenchText } from './corpus-text.js';
export {
  type BackendResult,
  benchEncoding,
  bestSeconds,
  encoderFactories,
  megabytes,
  sameCounts,
} from './encoding-throughput.js';
