import type { Tokenizer } from '@compactor/core';

export interface Truncated {
  text: string;
  tokens: number;
  truncated: boolean;
}

/**
 * The longest prefix of `text` within `maxTokens`, found by proportional shrinking (a few counts,
 * not a token-by-token walk). Never splits a surrogate pair.
 *
 * @param text - The text to cut.
 * @param maxTokens - The most the prefix may count.
 * @param tokenizer - Counts the candidates.
 * @returns The prefix, its tokens, and whether anything was cut.
 */
export function truncateToTokens(text: string, maxTokens: number, tokenizer: Tokenizer): Truncated {
  const tokens = tokenizer.count(text);
  if (tokens <= maxTokens) return { text, tokens, truncated: false };
  let length = Math.floor((text.length * maxTokens) / tokens);
  for (;;) {
    if (length <= 0) return { text: '', tokens: 0, truncated: true };
    if (isHighSurrogate(text.charCodeAt(length - 1))) length -= 1;
    const candidate = text.slice(0, length);
    const count = tokenizer.count(candidate);
    if (count <= maxTokens) return { text: candidate, tokens: count, truncated: true };
    length = Math.min(length - 1, Math.floor((length * maxTokens) / count) - 1);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
