import { ValidationError } from '@compactor/core';
import { createGptTokenizerEncoder } from './gpt-tokenizer-encoder.js';
import { createJsTiktokenEncoder } from './js-tiktoken-encoder.js';
import { withMultiByteStretchesOnWasm } from './multi-byte-run-encoder.js';
import { createTiktokenWasmEncoder } from './tiktoken-wasm-encoder.js';
import type { EncoderBackendName, EncodingName, TokenEncoder } from './token-encoder.js';

/**
 * The default backend: the fastest of the three with identical counts on the corpus
 * (see docs/BENCHMARKS.md, "Tokenizer", produced by `pnpm bench:tokenizer`).
 */
export const defaultEncoderBackend: EncoderBackendName = 'gpt-tokenizer';

const factories: Record<EncoderBackendName, (encoding: EncodingName) => TokenEncoder> = {
  'gpt-tokenizer': createGptTokenizerEncoder,
  'js-tiktoken': createJsTiktokenEncoder,
  'tiktoken-wasm': createTiktokenWasmEncoder,
};

/** Loading a rank table costs tens of milliseconds and megabytes: one encoder per pair per process. */
const loaded = new Map<string, TokenEncoder>();

/**
 * The encoder for an encoding, loaded once per process.
 *
 * @param encoding - The base encoding.
 * @param backend - The library that encodes.
 * @returns The shared encoder.
 * @throws ValidationError for an unknown backend.
 */
export function getEncoder(
  encoding: EncodingName,
  backend: EncoderBackendName = defaultEncoderBackend,
): TokenEncoder {
  const key = `${backend}:${encoding}`;
  const existing = loaded.get(key);
  if (existing) return existing;
  const factory = factories[backend];
  if (!factory) {
    throw new ValidationError(`unknown tokenizer backend "${backend}"`, [
      { path: 'backend', message: `expected one of ${Object.keys(factories).join(', ')}` },
    ]);
  }
  const encoder = factory(encoding);
  loaded.set(key, encoder);
  return encoder;
}

const counting = new Map<EncodingName, TokenEncoder>();

/**
 * What `createTokenizer` counts with when no backend is chosen: the default backend, with long
 * stretches of multi-byte text handed to tiktoken's WASM core (same counts, about 3× faster on
 * CJK). Both rank tables are loaded here, together: loading the WASM one takes 0.4–1 s of one
 * core, which must be a start-up cost like the first table's, never a stall in the middle of an
 * append that happens to be the first CJK one (ADR-0101).
 */
export function getDefaultCountingEncoder(encoding: EncodingName): TokenEncoder {
  const existing = counting.get(encoding);
  if (existing) return existing;
  const wasm = getEncoder(encoding, 'tiktoken-wasm');
  const encoder = withMultiByteStretchesOnWasm(getEncoder(encoding), () => wasm);
  counting.set(encoding, encoder);
  return encoder;
}
