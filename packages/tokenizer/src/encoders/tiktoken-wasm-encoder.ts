import { createRequire } from 'node:module';
import type { Tiktoken, TiktokenEncoding } from 'tiktoken';
import type { EncodingName, TokenEncoder } from './token-encoder.js';

const require = createRequire(import.meta.url);

/**
 * tiktoken compiled to WebAssembly (OpenAI's Rust core). `encode_ordinary` ignores special
 * tokens entirely, which is exactly "count them as text". The encoder lives for the process:
 * its WASM memory is small and freeing it would make the returned counter unusable.
 */
export function createTiktokenWasmEncoder(encoding: EncodingName): TokenEncoder {
  const { get_encoding: getEncoding } = require('tiktoken') as {
    get_encoding: (name: TiktokenEncoding) => Tiktoken;
  };
  const tokenizer = getEncoding(encoding);
  return {
    backend: 'tiktoken-wasm',
    encoding,
    countTokens: (text) => (text.length === 0 ? 0 : tokenizer.encode_ordinary(text).length),
  };
}
