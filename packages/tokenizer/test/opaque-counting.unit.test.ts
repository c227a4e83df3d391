import type { Message } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { createTokenizer, imageTokensByProvider } from '../src/index.js';

const gpt4o = createTokenizer({ model: 'gpt-4o' });

function opaqueMessage(payload: Record<string, unknown>): Message {
  return { id: 'a', role: 'assistant', content: [{ type: 'opaque', provider: 'openai-responses', payload }] };
}

describe('opaque provider parts are counted by their JSON estimate (ADR-0250)', () => {
  it('counts the payload JSON exactly, as the request counter counts a block it does not model', () => {
    const payload = { type: 'compaction', id: 'cmp_1', encrypted_content: 'short-state' };
    const json = JSON.stringify(payload);
    const empty = gpt4o.countMessage(opaqueMessage({}), 'openai-responses');
    const counted = gpt4o.countMessage(opaqueMessage(payload), 'openai-responses');
    expect(counted - empty).toBe(gpt4o.count(json) - gpt4o.count('{}'));
  });

  it('counts a long base64 payload as one image estimate, never as text', () => {
    const long = 'A'.repeat(200_000);
    const counted = gpt4o.countMessage(
      opaqueMessage({ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: long }),
      'openai-responses',
    );
    expect(counted).toBeGreaterThan(imageTokensByProvider.openai);
    expect(counted).toBeLessThan(imageTokensByProvider.openai + 100);
  });
});
