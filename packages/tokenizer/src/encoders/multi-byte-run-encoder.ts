import type { TokenEncoder } from './token-encoder.js';

/** Shorter stretches are not worth a call into WebAssembly (and most ordinary texts are shorter). */
export const minimumWasmStretch = 64;

/**
 * The longest run bounds (`CountingBounds.maxRunBytes`) under which the WASM encoder is used: its
 * merge is quadratic in a piece's length and keeps no cache, so a repeated character of a few
 * kilobytes, which gpt-tokenizer counts quickly, takes it far longer. Bounded counting keeps every
 * piece within `maxRunBytes` (256 by default).
 */
export const maxRunBytesForWasm = 1_024;

/** Any ASCII character, or a lone surrogate (which the two libraries might turn into bytes differently). */
const notForWasm = /[^\u0080-\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * `primary`, except that a stretch of text with no ASCII character at all (CJK without
 * punctuation, Cyrillic or Thai words run together: what bounded counting hands the encoder
 * when it cuts a long multi-byte run) of at least `minimumWasmStretch` UTF-16 units is counted by
 * `wasm`, tiktoken's WebAssembly core. Both implement the same encoding token for token, so the
 * count is the same; gpt-tokenizer spends about 3× longer per byte on multi-byte characters than
 * tiktoken does (measured: 1.0 against 3.3 MB/s CPU on CJK chunks of 85 characters). `wasm` is
 * called on the first such stretch; `getDefaultCountingEncoder` hands in one already loaded, so
 * its cost (0.4–1 s, 46–69 MB resident) is paid at start-up (ADR-0101).
 */
export function withMultiByteStretchesOnWasm(primary: TokenEncoder, wasm: () => TokenEncoder): TokenEncoder {
  let loaded: TokenEncoder | undefined;
  return {
    backend: primary.backend,
    encoding: primary.encoding,
    countTokens(text) {
      if (text.length < minimumWasmStretch || notForWasm.test(text)) return primary.countTokens(text);
      loaded ??= wasm();
      return loaded.countTokens(text);
    },
  };
}
