/**
 * Encoder throughput: each backend's MB/s on large strings and on many short strings, with its
 * counts kept so callers can check they are identical across backends. Shared by this package's
 * `bench` script and `compactor bench`.
 */
import { createGptTokenizerEncoder } from '../src/encoders/gpt-tokenizer-encoder.js';
import { createJsTiktokenEncoder } from '../src/encoders/js-tiktoken-encoder.js';
import { createTiktokenWasmEncoder } from '../src/encoders/tiktoken-wasm-encoder.js';
import type { EncoderBackendName, EncodingName, TokenEncoder } from '../src/encoders/token-encoder.js';

export const encoderFactories: Record<EncoderBackendName, (encoding: EncodingName) => TokenEncoder> = {
  'js-tiktoken': createJsTiktokenEncoder,
  'gpt-tokenizer': createGptTokenizerEncoder,
  'tiktoken-wasm': createTiktokenWasmEncoder,
};

export function megabytes(strings: readonly string[]): number {
  return strings.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1_000_000;
}

/** Best of `repeats` runs: the machine is shared, the fastest run is the least disturbed one. */
export function bestSeconds(run: () => void, repeats: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < repeats; attempt++) {
    const started = performance.now();
    run();
    best = Math.min(best, (performance.now() - started) / 1000);
  }
  return best;
}

function countAll(encoder: TokenEncoder, strings: readonly string[]): number[] {
  return strings.map((text) => encoder.countTokens(text));
}

export interface BackendResult {
  backend: EncoderBackendName;
  loadMs: number;
  largeMBps: number;
  shortMBps: number;
  largeCounts: number[];
  shortCounts: number[];
}

export function benchEncoding(
  encoding: EncodingName,
  large: string[],
  short: string[],
  repeats: number,
): BackendResult[] {
  const results: BackendResult[] = [];
  for (const backend of Object.keys(encoderFactories) as EncoderBackendName[]) {
    const loadStarted = performance.now();
    const encoder = encoderFactories[backend](encoding);
    const loadMs = performance.now() - loadStarted;
    countAll(encoder, short.slice(0, 200)); // warm the JIT and merge caches a little
    let largeCounts: number[] = [];
    let shortCounts: number[] = [];
    const largeSeconds = bestSeconds(() => {
      largeCounts = countAll(encoder, large);
    }, repeats);
    const shortSeconds = bestSeconds(() => {
      shortCounts = countAll(encoder, short);
    }, repeats);
    results.push({
      backend,
      loadMs,
      largeMBps: megabytes(large) / largeSeconds,
      shortMBps: megabytes(short) / shortSeconds,
      largeCounts,
      shortCounts,
    });
  }
  return results;
}

export function sameCounts(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
