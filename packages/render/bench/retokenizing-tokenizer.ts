import type { Message, Tokenizer } from '@compactor/core';
import { getEncoding } from 'js-tiktoken';

/**
 * The AI SDK compaction layer's way of counting (ADR-0023), the render benchmark's baseline: js-tiktoken (o200k_base)
 * re-tokenizing every message on every call, with no memo at all.
 */
export function createRetokenizingTokenizer(): Tokenizer {
  const encoding = getEncoding('o200k_base');
  const encode = (text: string) => encoding.encode(text).length;
  return {
    id: 'js-tiktoken-every-call',
    count: encode,
    countMessage(message: Message) {
      let total = 3;
      for (const part of message.content) {
        if (part.type === 'text' || part.type === 'reasoning') total += encode(part.text);
        else if (part.type === 'tool_call')
          total += encode(part.name) + encode(JSON.stringify(part.input ?? {}));
        else if (part.type === 'tool_result') {
          total += encode(typeof part.content === 'string' ? part.content : JSON.stringify(part.content));
        }
      }
      return total;
    },
    countTools: (definitions) => encode(JSON.stringify(definitions)),
  };
}
