import type { ContentPart, Message } from '@compactor/core';
import type { Tiktoken } from 'js-tiktoken';
import { getEncoding } from 'js-tiktoken';
import type { TokenEncoder } from '../src/index.js';
import { getEncoder } from '../src/index.js';

/**
 * Reference counts straight from js-tiktoken (the library, not this package), so expected
 * values are not produced by the code under test.
 */
const referenceEncoders = new Map<string, Tiktoken>();
export function referenceCount(text: string, encoding: 'o200k_base' | 'cl100k_base' = 'o200k_base'): number {
  const encoder = referenceEncoders.get(encoding) ?? getEncoding(encoding);
  referenceEncoders.set(encoding, encoder);
  return encoder.encode(text, [], []).length;
}

/** An encoder that counts how often it tokenizes, to prove the cache spares it. */
export function spyEncoder(
  encoding: 'o200k_base' | 'cl100k_base' = 'o200k_base',
): TokenEncoder & { calls: string[] } {
  const inner = getEncoder(encoding, 'gpt-tokenizer');
  const calls: string[] = [];
  return {
    backend: 'gpt-tokenizer',
    encoding,
    calls,
    countTokens(text) {
      calls.push(text);
      return inner.countTokens(text);
    },
  };
}

let sequence = 0;
export function message(role: Message['role'], ...content: ContentPart[]): Message {
  sequence += 1;
  return { id: `m${sequence}`, role, content };
}

export function text(value: string): ContentPart {
  return { type: 'text', text: value };
}

export function toolResult(
  toolName: string,
  content: string | Record<string, unknown>,
  outcome: 'success' | 'failure' = 'success',
): ContentPart {
  return { type: 'tool_result', toolName, toolCallId: `call-${toolName}`, outcome, content, keyFields: {} };
}
