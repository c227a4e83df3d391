/**
 * Bounded counting's throughput on the worst inputs beside ordinary text: MB/s of the
 * tokenizer's own counting path (`countBounded` with the default bounds and the default counting
 * encoder: gpt-tokenizer, long multi-byte stretches on tiktoken's WASM core; o200k_base). CPU time is measured as well as wall time: on a shared machine the CPU figure is
 * the stable one, and the ratio to ordinary text uses it.
 */
import { countBounded } from '../src/bounded/bounded-count.js';
import { defaultCountingBounds } from '../src/bounded/counting-bounds.js';
import { getDefaultCountingEncoder } from '../src/encoders/create-encoder.js';
import { base64Text, cjkText, minifiedJavaScript, repeatedLetter } from './worst-case-inputs.js';

export interface WorstCaseSizes {
  letterBytes: number;
  base64Bytes: number;
  cjkBytes: number;
  minifiedBytes: number;
}

export interface ThroughputRow {
  input: string;
  megabytes: number;
  tokens: number;
  cpuMBps: number;
  wallMBps: number;
  /** Ordinary text's CPU MB/s over this row's (1 for ordinary text itself). */
  slowdown: number;
}

export interface WorstCaseResult {
  ordinary: ThroughputRow;
  worstCases: ThroughputRow[];
  /** The largest slowdown among the worst cases. */
  worstOverOrdinary: number;
}

function cpuMilliseconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1_000;
}

function measure(input: string, texts: readonly string[]): Omit<ThroughputRow, 'slowdown'> {
  const encoder = getDefaultCountingEncoder('o200k_base');
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  const cpuStarted = cpuMilliseconds();
  const wallStarted = performance.now();
  let tokens = 0;
  for (const text of texts) tokens += countBounded(encoder, text, defaultCountingBounds);
  const wallSeconds = (performance.now() - wallStarted) / 1_000;
  const cpuSeconds = Math.max(cpuMilliseconds() - cpuStarted, 0.001) / 1_000;
  const megabytes = bytes / 1_000_000;
  return { input, megabytes, tokens, cpuMBps: megabytes / cpuSeconds, wallMBps: megabytes / wallSeconds };
}

/**
 * Each text is counted once, as the ingest meets it (a text never seen, the encoder's merge
 * cache holding only what earlier text left there). `ordinary` is corpus prose, code and tool
 * output, joined into strings the size of the worst-case ones.
 */
export function benchWorstCase(ordinary: readonly string[], sizes: WorstCaseSizes): WorstCaseResult {
  // Warm the JIT and load the rank tables (the WASM one on the first long multi-byte stretch)
  // outside the measurement.
  const warm = getDefaultCountingEncoder('o200k_base');
  countBounded(warm, minifiedJavaScript(20_000, 99), defaultCountingBounds);
  countBounded(warm, cjkText(3_000, 99), defaultCountingBounds);
  const ordinaryRow = { ...measure('ordinary text (corpus)', ordinary), slowdown: 1 };
  const rows = [
    measure('one letter', [repeatedLetter(sizes.letterBytes)]),
    measure('base64', [base64Text(sizes.base64Bytes)]),
    measure('CJK, no punctuation', [cjkText(sizes.cjkBytes)]),
    measure('minified JavaScript', [minifiedJavaScript(sizes.minifiedBytes)]),
  ].map((row) => ({ ...row, slowdown: ordinaryRow.cpuMBps / row.cpuMBps }));
  return {
    ordinary: ordinaryRow,
    worstCases: rows,
    worstOverOrdinary: Math.max(...rows.map((row) => row.slowdown)),
  };
}
