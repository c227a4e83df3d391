import type { Message, ProviderName, Tokenizer, ToolDefinition } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { createRenderCache, renderPromptSync } from '../src/index.js';
import { deploySession, edgeCaseThread, TOOLS } from './support/fixtures.js';
import { renderInput } from './support/render-helpers.js';
import { tokenizerFor } from './support/tokenizers.js';

function spyTokenizer(provider: ProviderName) {
  const real = tokenizerFor(provider);
  const calls = { messages: 0, tools: 0 };
  const tokenizer: Tokenizer = {
    id: real.id,
    count: (text) => real.count(text),
    countMessage: (message: Message, name) => {
      calls.messages += 1;
      return real.countMessage(message, name);
    },
    countTools: (tools: readonly ToolDefinition[], name) => {
      calls.tools += 1;
      return real.countTools(tools, name);
    },
  };
  return { tokenizer, calls };
}

describe('RenderCache', () => {
  const { thread } = deploySession();

  it('re-tokenizes nothing on a warm render', () => {
    const cache = createRenderCache();
    const { tokenizer, calls } = spyTokenizer('anthropic');
    renderPromptSync(renderInput('anthropic', thread, null, { cache, tokenizer }));
    const afterCold = { ...calls };
    expect(afterCold.messages).toBeGreaterThan(10);
    renderPromptSync(renderInput('anthropic', thread, null, { cache, tokenizer }));
    expect(calls).toEqual(afterCold);
  });

  it('serves an equal tools array built anew for every call from memory', () => {
    const cache = createRenderCache();
    const { tokenizer, calls } = spyTokenizer('openai-chat');
    for (let call = 0; call < 3; call += 1) {
      const tools = TOOLS.map((tool) => ({ ...tool }));
      renderPromptSync(renderInput('openai-chat', thread, null, { cache, tokenizer, tools }));
    }
    expect(calls.tools).toBe(1);
  });

  it('keeps at most maxThreads threads, least recently rendered out first', () => {
    const cache = createRenderCache({ maxThreads: 1 });
    renderPromptSync(renderInput('anthropic', thread, null, { cache }));
    renderPromptSync(renderInput('anthropic', edgeCaseThread(), null, { cache }));
    expect(cache.threadCount).toBe(1);
    const { tokenizer, calls } = spyTokenizer('anthropic');
    renderPromptSync(renderInput('anthropic', thread, null, { cache, tokenizer }));
    expect(calls.messages).toBeGreaterThan(10);
  });

  it('resets a thread whose memo outgrows maxEntriesPerThread, and renders the same bytes', () => {
    const small = createRenderCache({ maxEntriesPerThread: 5 });
    const cold = JSON.stringify(renderPromptSync(renderInput('anthropic', thread, null)));
    for (let call = 0; call < 3; call += 1) {
      expect(JSON.stringify(renderPromptSync(renderInput('anthropic', thread, null, { cache: small })))).toBe(
        cold,
      );
    }
  });

  it('keeps providers and tokenizers apart', () => {
    const cache = createRenderCache();
    const anthropic = renderPromptSync(renderInput('anthropic', thread, null, { cache }));
    const chat = renderPromptSync(renderInput('openai-chat', thread, null, { cache }));
    expect(JSON.stringify(chat)).toBe(
      JSON.stringify(renderPromptSync(renderInput('openai-chat', thread, null))),
    );
    expect(JSON.stringify(anthropic)).not.toBe(JSON.stringify(chat));
    expect(cache.threadCount).toBe(2);
  });
});

describe('RenderCache tenant isolation', () => {
  it('never serves one tenant’s message to another with the same thread and message ids', async () => {
    const { threadBuilder } = await import('@compactor/testkit/thread-builder');
    const cache = createRenderCache();
    const alice = threadBuilder('t', { tenantId: 'alice' }).user('alice secret: blue').build().thread;
    const bob = threadBuilder('t', { tenantId: 'bob' }).user('bob secret: green').build().thread;
    expect(alice.messages[0]!.id).toBe(bob.messages[0]!.id);
    expect(alice.messages[0]!.seq).toBe(bob.messages[0]!.seq);
    const first = JSON.stringify(
      renderPromptSync({ ...renderInput('anthropic', alice, null), cache }).request,
    );
    const second = JSON.stringify(
      renderPromptSync({ ...renderInput('anthropic', bob, null), cache }).request,
    );
    expect(first).toContain('alice secret');
    expect(second).toContain('bob secret');
    expect(second).not.toContain('alice secret');
  });
});
