/**
 * `pnpm --filter @compactor/tokenizer bench` (root: `pnpm bench:tokenizer`).
 *
 * For each encoder backend and encoding, in one run: MB/s on large strings and on many short
 * strings (messages), whether every count is identical to js-tiktoken's, and the speed ratio
 * to js-tiktoken; then the count cache (miss vs hit) and the cost of cache keys (the string
 * itself vs hashes). Prints Markdown tables.
 */
import { createHash } from 'node:crypto';
import type { EncodingName } from '../src/encoders/token-encoder.js';
import { createCountCache, createTokenizer } from '../src/index.js';
import { corpusAvailable, loadBenchText } from './corpus-text.js';
import {
  type BackendResult,
  benchEncoding,
  bestSeconds as bestSecondsOf,
  megabytes,
  sameCounts,
} from './encoding-throughput.js';

const bytesPerSource = Number(process.env.BENCH_BYTES_PER_SOURCE ?? 700_000);
const repeats = Number(process.env.BENCH_REPEATS ?? 3);

function bestSeconds(run: () => void): number {
  return bestSecondsOf(run, repeats);
}

function format(value: number, digits = 1): string {
  return value.toFixed(digits);
}

function printEncoding(
  encoding: EncodingName,
  results: BackendResult[],
  large: string[],
  short: string[],
): void {
  const reference = results.find((result) => result.backend === 'js-tiktoken')!;
  const totalTokens = reference.largeCounts.reduce((a, b) => a + b, 0);
  console.log(
    `\n### ${encoding}: ${large.length} large strings (${format(megabytes(large), 2)} MB, ${totalTokens} tokens), ${short.length} short strings (${format(megabytes(short), 2)} MB, mean ${Math.round((megabytes(short) * 1e6) / short.length)} bytes)\n`,
  );
  console.log(
    '| backend | first load (ms) | large MB/s | short MB/s | × js-tiktoken (large / short) | counts identical to js-tiktoken |',
  );
  console.log('|---|---:|---:|---:|---:|---|');
  for (const result of results) {
    const identical =
      sameCounts(result.largeCounts, reference.largeCounts) &&
      sameCounts(result.shortCounts, reference.shortCounts);
    console.log(
      `| ${result.backend} | ${format(result.loadMs, 0)} | ${format(result.largeMBps, 2)} | ${format(result.shortMBps, 2)} | ${format(result.largeMBps / reference.largeMBps, 2)} / ${format(result.shortMBps / reference.shortMBps, 2)} | ${identical ? 'yes' : 'NO'} |`,
    );
  }
}

function benchCache(short: string[]): void {
  const tokenizer = createTokenizer({
    model: 'gpt-4o',
    cache: createCountCache({ maxEntries: short.length + 10 }),
  });
  const size = megabytes(short);
  const started = performance.now();
  for (const text of short) tokenizer.countExact(text);
  const miss = (performance.now() - started) / 1000;
  const hit = bestSeconds(() => {
    for (const text of short) tokenizer.countExact(text);
  });
  console.log('\n### Count cache (gpt-tokenizer, o200k_base, the short strings)\n');
  console.log('| pass | MB/s | µs per string |');
  console.log('|---|---:|---:|');
  console.log(
    `| first (tokenize + store) | ${format(size / miss, 2)} | ${format((miss * 1e6) / short.length, 2)} |`,
  );
  console.log(`| repeat (cache hit) | ${format(size / hit, 1)} | ${format((hit * 1e6) / short.length, 2)} |`);
}

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** Lookup cost of a cache key per string length: the string itself vs three hashes. */
function benchCacheKeys(): void {
  const keyers: [string, (text: string) => string][] = [
    ['string itself', (text) => text],
    ['sha256 (node:crypto)', (text) => createHash('sha256').update(text).digest('base64')],
    ['sha1 (node:crypto)', (text) => createHash('sha1').update(text).digest('base64')],
    ['fnv1a-32 (JavaScript)', fnv1a],
  ];
  const lengths = [16, 256, 4_096, 65_536];
  console.log('\n### Cache key cost: ns per lookup (fresh string copies, 2,000 keys)\n');
  console.log(`| key | ${lengths.map((length) => `${length} chars`).join(' | ')} |`);
  console.log(`|---|${lengths.map(() => '---:').join('|')}|`);
  for (const [name, keyOf] of keyers) {
    const cells = lengths.map((length) => {
      const texts = Array.from({ length: 2_000 }, (_, index) =>
        `${index} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(length / 27))}`.slice(0, length),
      );
      const map = new Map(texts.map((text) => [keyOf(text), 1]));
      // Copies defeat V8's per-string hash cache, as strings parsed from a new request would.
      const copies = texts.map((text) => ` ${text}`.slice(1));
      const seconds = bestSeconds(() => {
        let found = 0;
        for (const text of copies) found += map.get(keyOf(text)) ?? 0;
        if (found !== texts.length) throw new Error(`${name}: ${found} of ${texts.length} keys found`);
      });
      return format((seconds * 1e9) / texts.length, 0);
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}

function main(): void {
  const texts = loadBenchText(bytesPerSource);
  console.log(`## Tokenizer benchmark (node ${process.version}, best of ${repeats} runs)\n`);
  console.log(
    corpusAvailable
      ? `Text: ${texts.map((text) => `${text.source} (${text.pieces.length} pieces, ${format(megabytes(text.pieces), 2)} MB)`).join('; ')}.`
      : 'Corpus absent (../shared/corpus or COMPACTOR_CORPUS_DIR): running on a small built-in sample; these numbers are not comparable to corpus runs.',
  );
  const large = texts.map((text) => text.pieces.join('\n\n'));
  const short = texts.flatMap((text) => text.pieces);
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    printEncoding(encoding, benchEncoding(encoding, large, short, repeats), large, short);
  }
  benchCache(short);
  benchCacheKeys();
}

main();
