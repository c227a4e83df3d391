import { describe, expect, it } from 'vitest';
import type { CountCache } from '../src/index.js';
import { createCountCache, createTokenizer } from '../src/index.js';
import { message, spyEncoder, text, toolResult } from './helpers.js';

describe('tokenizer count cache', () => {
  it('does not re-tokenize a text it has counted', () => {
    const encoder = spyEncoder();
    const tokenizer = createTokenizer({ model: 'gpt-4o', encoder, cache: createCountCache() });
    const first = tokenizer.count('the same sentence, counted twice');
    const second = tokenizer.count('the same sentence, counted twice');
    expect(second).toBe(first);
    expect(encoder.calls).toHaveLength(1);
  });

  it('does not re-tokenize unchanged content in new message objects', () => {
    const encoder = spyEncoder();
    const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5', encoder, cache: createCountCache() });
    const build = () => message('tool', toolResult('read_file', 'file contents '.repeat(100)));
    const first = tokenizer.countMessage(build(), 'anthropic');
    const callsAfterFirst = encoder.calls.length;
    const second = tokenizer.countMessage(build(), 'anthropic');
    expect(second).toBe(first);
    expect(callsAfterFirst).toBeGreaterThan(0);
    expect(encoder.calls).toHaveLength(callsAfterFirst);
  });

  it('shares counts between tokenizers of the same encoding', () => {
    const cache = createCountCache();
    const firstEncoder = spyEncoder();
    const secondEncoder = spyEncoder();
    createTokenizer({ model: 'gpt-4o', encoder: firstEncoder, cache }).countExact('shared text');
    createTokenizer({ model: 'gpt-4.1', encoder: secondEncoder, cache }).countExact('shared text');
    expect(firstEncoder.calls).toHaveLength(1);
    expect(secondEncoder.calls).toHaveLength(0);
  });

  it('keeps encodings apart in a shared cache', () => {
    const cache = createCountCache();
    const o200k = spyEncoder('o200k_base');
    const cl100k = spyEncoder('cl100k_base');
    createTokenizer({ model: 'gpt-4o', encoder: o200k, cache }).countExact('日本語のテキスト');
    createTokenizer({ model: 'gpt-4', encoder: cl100k, cache }).countExact('日本語のテキスト');
    expect(cl100k.calls).toHaveLength(1);
  });

  it('tokenizes every time when the cache is disabled', () => {
    const encoder = spyEncoder();
    const tokenizer = createTokenizer({ model: 'gpt-4o', encoder, cache: false });
    tokenizer.count('again');
    tokenizer.count('again');
    expect(encoder.calls).toHaveLength(2);
  });

  it('stays within its bound while counting many distinct strings', () => {
    const cache = createCountCache({ maxEntries: 50 });
    const tokenizer = createTokenizer({ model: 'gpt-4o', cache });
    for (let index = 0; index < 500; index++) tokenizer.countExact(`distinct string number ${index}`);
    expect(cache.size).toBe(50);
  });

  it('keys long strings by a hash, not by the string', () => {
    const keys: string[] = [];
    const inner = createCountCache();
    const recording: CountCache = {
      get: (key) => inner.get(key),
      set: (key, count) => {
        keys.push(key);
        inner.set(key, count);
      },
      get size() {
        return inner.size;
      },
      get bytes() {
        return inner.bytes;
      },
      maxBytes: inner.maxBytes,
      maxEntries: inner.maxEntries,
      clear: () => inner.clear(),
    };
    const encoder = spyEncoder();
    const tokenizer = createTokenizer({ model: 'gpt-4o', encoder, cache: recording });
    const long = 'a long tool output line\n'.repeat(2_000);
    tokenizer.countExact(long);
    tokenizer.countExact(long);
    expect(encoder.calls).toHaveLength(1);
    expect(keys).toHaveLength(1);
    expect(keys[0]!.length).toBeLessThan(100);
  });

  it('counts a message object once for its lifetime', () => {
    const encoder = spyEncoder();
    const tokenizer = createTokenizer({ model: 'gpt-4o', encoder, cache: false });
    const same = message('user', text('only tokenized once'));
    tokenizer.countMessage(same, 'openai-chat');
    tokenizer.countMessage(same, 'openai-chat');
    expect(encoder.calls).toHaveLength(1);
  });
});
