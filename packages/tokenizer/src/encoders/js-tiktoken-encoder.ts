import { createRequire } from 'node:module';
import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite';
import type { EncodingName, TokenEncoder } from './token-encoder.js';

const require = createRequire(import.meta.url);

/** js-tiktoken (pure JavaScript port of tiktoken), the library DESIGN.md first named. */
export function createJsTiktokenEncoder(encoding: EncodingName): TokenEncoder {
  const { Tiktoken: TiktokenClass } = require('js-tiktoken/lite') as { Tiktoken: typeof Tiktoken };
  const ranks = require(`js-tiktoken/ranks/${encoding}`) as { default?: TiktokenBPE } & TiktokenBPE;
  const tokenizer = new TiktokenClass(ranks.default ?? ranks);
  return {
    backend: 'js-tiktoken',
    encoding,
    // An empty disallow list makes special-token-looking text ordinary text.
    countTokens: (text) => (text.length === 0 ? 0 : tokenizer.encode(text, [], []).length),
  };
}
