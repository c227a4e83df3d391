import { createRequire } from 'node:module';
import type { EncodingName, TokenEncoder } from './token-encoder.js';

interface GptTokenizerEncodingModule {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

const require = createRequire(import.meta.url);
/** An empty set: no special token is disallowed, and none is allowed either, so they encode as text. */
const treatSpecialTokensAsText = { disallowedSpecial: new Set<string>() };

/**
 * gpt-tokenizer (pure JavaScript). Each encoding's rank table is loaded on first use through
 * `require`, so a process that only counts o200k never pays for cl100k.
 */
export function createGptTokenizerEncoder(encoding: EncodingName): TokenEncoder {
  const module = require(`gpt-tokenizer/encoding/${encoding}`) as GptTokenizerEncodingModule;
  return {
    backend: 'gpt-tokenizer',
    encoding,
    countTokens: (text) => (text.length === 0 ? 0 : module.countTokens(text, treatSpecialTokensAsText)),
  };
}
