/** The exact byte-pair encodings this package counts with. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

export const encodingNames: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

/** The libraries that implement the encodings; they must agree token for token. */
export type EncoderBackendName = 'gpt-tokenizer' | 'js-tiktoken' | 'tiktoken-wasm';

export const encoderBackendNames: readonly EncoderBackendName[] = [
  'gpt-tokenizer',
  'js-tiktoken',
  'tiktoken-wasm',
];

/**
 * One encoding implemented by one library. `countTokens` treats every input as plain text:
 * strings that look like special tokens (`<|endoftext|>`) are counted as the text they are,
 * never rejected and never mapped to the special token id.
 */
export interface TokenEncoder {
  readonly backend: string;
  readonly encoding: EncodingName;
  /**
   * @param text - Any text, counted as plain text.
   * @returns Its tokens in this encoding.
   */
  countTokens(text: string): number;
}
