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
export { base64Text, cjkText, minifiedJavaScript, repeatedLetter } from './worst-case-inputs.js';
export {
  benchWorstCase,
  type ThroughputRow,
  type WorstCaseResult,
  type WorstCaseSizes,
} from './worst-case-throughput.js';
