import { TOKENIZER_FAMILY_METADATA_KEY } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { createThreadTokenizers, tokenizerForThread } from '../src/index.js';

describe('tokenizerForThread', () => {
  it('uses the registry for a known model, with the thread window', () => {
    const tokenizer = tokenizerForThread({ model: 'gpt-4o', contextWindow: 50_000 });
    expect(tokenizer.encoding).toBe('o200k_base');
    expect(tokenizer.model.contextWindow).toBe(50_000);
  });

  it('honours the tokenizer family of an unknown model, from a folded thread or its created event', () => {
    const fromThread = tokenizerForThread({
      model: 'acme-7b',
      contextWindow: 32_000,
      maxOutputTokens: 4_000,
      tokenizerFamily: 'cl100k_base',
    });
    const fromEvent = tokenizerForThread({
      model: 'acme-7b',
      contextWindow: 32_000,
      maxOutputTokens: 4_000,
      metadata: { [TOKENIZER_FAMILY_METADATA_KEY]: 'cl100k_base' },
    });
    expect(fromThread.encoding).toBe('cl100k_base');
    expect(fromEvent.encoding).toBe('cl100k_base');
    expect(() =>
      tokenizerForThread({ model: 'acme-7b', contextWindow: 32_000, maxOutputTokens: 4_000 }),
    ).toThrow(/unknown model/);
  });

  it('shares one tokenizer per model configuration', () => {
    const tokenizers = createThreadTokenizers(2);
    const first = tokenizers.forThread({ model: 'gpt-4o', contextWindow: 1_000 });
    expect(tokenizers.forThread({ model: 'gpt-4o', contextWindow: 1_000 })).toBe(first);
    tokenizers.forThread({ model: 'gpt-4o', contextWindow: 2_000 });
    tokenizers.forThread({ model: 'gpt-4o', contextWindow: 3_000 });
    expect(tokenizers.forThread({ model: 'gpt-4o', contextWindow: 1_000 })).not.toBe(first);
  });
});
